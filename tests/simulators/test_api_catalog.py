"""Catalog endpoints, the catalog loader and the admin's head_dim check."""

from pathlib import Path

import pytest
import yaml
from api_helpers import BASE, load_real_catalog, strict_json

from apps.core.content import FIXTURES_DIR, LoadContext
from apps.simulators.admin import head_dim_warning
from apps.simulators.content import load_catalog
from apps.simulators.models import GPU, ModelConfig

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog():
    return load_real_catalog()


def _slugs(name: str) -> list[str]:
    return [row["slug"] for row in yaml.safe_load((FIXTURES_DIR / "catalog" / name).read_text())]


def test_model_list_holds_every_catalog_model(api_client, catalog):
    data = strict_json(api_client.get(f"{BASE}/models/?page_size=100"))
    assert sorted(row["slug"] for row in data["results"]) == sorted(_slugs("models.yaml"))


def test_model_detail_matches_published_llama_config(api_client, catalog):
    data = strict_json(api_client.get(f"{BASE}/models/llama-3.1-8b/"))
    # meta-llama/Llama-3.1-8B config.json
    assert (data["num_layers"], data["hidden_size"], data["num_attention_heads"], data["num_kv_heads"]) == (32, 4096, 32, 8)
    assert (data["head_dim"], data["intermediate_size"], data["vocab_size"]) == (128, 14336, 128256)
    assert data["max_position_embeddings"] == 131072 and data["attention"] == "gqa"


def test_deepseek_detail_carries_mla_and_moe_fields(api_client, catalog):
    data = strict_json(api_client.get(f"{BASE}/models/deepseek-v3/"))
    assert (data["kv_lora_rank"], data["qk_rope_head_dim"], data["num_experts"], data["experts_per_token"]) == (512, 64, 256, 8)


def test_gpu_detail_matches_h100_datasheet(api_client, catalog):
    data = strict_json(api_client.get(f"{BASE}/gpus/h100-sxm/"))
    assert data["memory_bytes"] == 84_975_927_951 and data["marketing_memory_bytes"] == 80e9  # 79.14 GiB to CUDA
    assert data["hbm_bandwidth_bytes_per_s"] == 3.35e12
    assert data["bf16_dense_flops"] == 989.4e12  # 1,979 TFLOPS with sparsity, halved


def test_gpu_list_holds_every_catalog_gpu(api_client, catalog):
    data = strict_json(api_client.get(f"{BASE}/gpus/?page_size=100"))
    assert sorted(row["slug"] for row in data["results"]) == sorted(_slugs("gpus.yaml"))


def test_list_runs_a_fixed_number_of_queries(api_client, catalog, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        assert api_client.get(f"{BASE}/models/").status_code == 200


def test_unknown_slug_is_404(api_client, catalog):
    assert api_client.get(f"{BASE}/models/no-such-model/").status_code == 404
    assert api_client.get(f"{BASE}/gpus/no-such-gpu/").status_code == 404


def test_draft_model_is_hidden_from_learners_but_shown_to_authors(learner_client, author_client, catalog):
    ModelConfig.objects.filter(slug="mistral-7b").update(status="draft")
    assert learner_client.get(f"{BASE}/models/mistral-7b/").status_code == 404
    listed = strict_json(learner_client.get(f"{BASE}/models/?page_size=100"))["results"]
    assert "mistral-7b" not in {row["slug"] for row in listed}
    assert author_client.get(f"{BASE}/models/mistral-7b/").status_code == 200
    body = {"model": "mistral-7b", "context_tokens": 100}
    response = learner_client.post(f"{BASE}/kv-cache/", body, format="json")
    assert response.status_code == 400 and "model" in strict_json(response)["fields"]


def test_catalog_loads_twice_identically():
    first = load_real_catalog()
    before = {(m.slug, m.updated_at) for m in ModelConfig.objects.all()} | {(g.slug, g.updated_at) for g in GPU.objects.all()}
    second = load_real_catalog()
    after = {(m.slug, m.updated_at) for m in ModelConfig.objects.all()} | {(g.slug, g.updated_at) for g in GPU.objects.all()}
    assert first.counts == second.counts and first.counts["models"] == len(_slugs("models.yaml"))
    assert before == after  # nothing rewritten


def _write_catalog(root: Path, models: str, gpus: str = "[]") -> LoadContext:
    (root / "catalog").mkdir(parents=True)
    (root / "catalog" / "models.yaml").write_text(models)
    (root / "catalog" / "gpus.yaml").write_text(gpus)
    ctx = LoadContext(root=root)
    load_catalog(ctx)
    return ctx


def test_loader_reports_bad_entries_with_line_numbers(tmp_path):
    good = (FIXTURES_DIR / "catalog" / "models.yaml").read_text().split("\n- slug: llama-3.1-70b")[0]
    bad = good + "\n- slug: broken\n  name: Broken\n  num_layers: lots\n"
    ctx = _write_catalog(tmp_path, bad)
    line = bad.splitlines().index("- slug: broken") + 1
    assert [(e.line, "num_layers" in e.message) for e in ctx.errors] == [(line, True)]


def test_loader_rejects_an_mla_model_without_its_latent_rank(tmp_path):
    text = (FIXTURES_DIR / "catalog" / "models.yaml").read_text().split("\n- slug: llama-3.1-70b")[0]
    text = text.replace("attention: gqa", "attention: mla")
    ctx = _write_catalog(tmp_path, text)
    assert len(ctx.errors) == 1 and "kv_lora_rank" in ctx.errors[0].message


def test_admin_warns_when_head_dim_times_heads_is_not_hidden(catalog):
    llama = ModelConfig.objects.get(slug="llama-3.1-8b")
    assert head_dim_warning(llama) is None
    llama.head_dim = 96
    assert "96 × 32 = 3,072 ≠ hidden_size 4,096" in head_dim_warning(llama)
    # Qwen3 sets head_dim independently (128 × 64 ≠ 5120 by design)
    assert head_dim_warning(ModelConfig.objects.get(slug="qwen3-32b")) is None


def test_opt_13b_detail_carries_the_plain_mlp_biases_and_position_table(api_client, catalog):
    d = strict_json(api_client.get(f"{BASE}/models/opt-13b/"))
    assert (d["mlp"], d["bias"], d["learned_position_embeddings"]) == ("plain", True, 2050)
    llama = strict_json(api_client.get(f"{BASE}/models/llama-3.1-8b/"))
    assert (llama["mlp"], llama["bias"], llama["learned_position_embeddings"]) == ("gated", False, None)


@pytest.mark.parametrize(("change", "field"), [
    ({"mlp": "swiglu"}, "mlp"), ({"bias": "maybe"}, "bias"), ({"learned_position_embeddings": 0},
                                                               "learned_position_embeddings"),
])
def test_catalog_write_checks_the_mlp_fields(author_client, catalog, change, field):
    row = strict_json(author_client.get(f"{BASE}/models/opt-13b/"))
    body = {**row, "slug": "opt-13b-copy", **change}
    response = author_client.post(f"{BASE}/models/", body, format="json")
    assert response.status_code == 400 and field in strict_json(response)["fields"], strict_json(response)


def test_catalog_write_accepts_a_plain_mlp_model(author_client, catalog):
    row = strict_json(author_client.get(f"{BASE}/models/opt-13b/"))
    response = author_client.post(f"{BASE}/models/", {**row, "slug": "opt-13b-copy"}, format="json")
    assert response.status_code == 201, strict_json(response)
    saved = ModelConfig.objects.get(slug="opt-13b-copy")
    assert (saved.mlp, saved.bias, saved.learned_position_embeddings) == ("plain", True, 2050)
