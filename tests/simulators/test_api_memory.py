"""kv-cache and fit endpoints: hand-derived sizes, inline configs, warnings and 400s that name the field."""

import pytest
from api_helpers import load_real_catalog, post

pytestmark = pytest.mark.django_db

LLAMA_8B_CONFIG = {
    "num_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_kv_heads": 8, "head_dim": 128,
    "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 131072, "attention": "gqa",
}


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def kv(client, status=200, **body):
    return post(client, "kv-cache", {"model": "llama-3.1-8b", "context_tokens": 8192, **body}, status)


def test_llama_8b_bf16_kv_cache(api_client):
    d = kv(api_client, kv_dtype="bf16", batch_size=16)
    assert d["bytes_per_token"] == 2 * 32 * 8 * 128 * 2 == 131_072
    assert d["bytes_per_sequence"] == 131_072 * 8192 == 1_073_741_824
    assert d["total_bytes"] == d["per_gpu_bytes"] == 1_073_741_824 * 16
    assert "2 · 32 · 8 · 128 · 2 B" in d["derivation"]
    assert d["warnings"] == []


def test_fp8_halves_the_kv_cache(api_client):
    assert kv(api_client, kv_dtype="fp8")["bytes_per_token"] == 131_072 / 2


def test_deepseek_v3_mla_latent_is_not_sharded_by_tp(api_client):
    d = post(api_client, "kv-cache", {"model": "deepseek-v3", "context_tokens": 1000, "tensor_parallel": 8})
    assert d["bytes_per_token"] == 61 * (512 + 64) * 2 == 70_272
    assert d["bytes_per_token_per_gpu"] == 70_272  # every rank holds the whole latent
    assert d["all_gpus_bytes"] == 8 * d["per_gpu_bytes"] == 8 * 70_272 * 1000
    assert d["sharded_by_tp"] is False


def test_mistral_sliding_window_caps_the_cache(api_client):
    d = post(api_client, "kv-cache", {"model": "mistral-7b", "context_tokens": 8192})
    # every one of 32 layers keeps min(8192, 4096) tokens of 2 · 8 · 128 · 2 B
    assert d["bytes_per_sequence"] == 32 * 4096 * (2 * 8 * 128 * 2) == 536_870_912
    assert d["sliding_window_layers"] == 32


def test_tensor_parallel_shards_kv_heads(api_client):
    d = kv(api_client, tensor_parallel=8)
    assert d["bytes_per_token_per_gpu"] == 131_072 / 8 and d["heads_per_gpu"] == 1


def test_inline_config_gives_the_same_answer_as_the_catalog(api_client):
    d = post(api_client, "kv-cache", {"config": LLAMA_8B_CONFIG, "context_tokens": 8192})
    assert d["bytes_per_token"] == 131_072


def test_context_beyond_the_model_is_a_warning_not_an_error(api_client):
    d = kv(api_client, context_tokens=200_000)
    assert d["bytes_per_sequence"] == 131_072 * 200_000
    assert any("max_position_embeddings" in w for w in d["warnings"])


def test_tp_that_does_not_divide_heads_is_a_warning(api_client):
    assert any("tensor_parallel=3" in w for w in kv(api_client, tensor_parallel=3)["warnings"])


@pytest.mark.parametrize("body, field", [
    ({"model": "no-such-model"}, "model"),
    ({"model": None}, "model"),
    ({"kv_dtype": "fp7"}, "kv_dtype"),
    ({"context_tokens": 0}, "context_tokens"),
    ({"context_tokens": -5}, "context_tokens"),
    ({"context_tokens": 10**12}, "context_tokens"),
    ({"batch_size": 0}, "batch_size"),
    ({"tensor_parallel": 0}, "tensor_parallel"),
    ({"context_tokens": "lots"}, "context_tokens"),
])
def test_kv_cache_bad_input_names_the_field(api_client, body, field):
    d = kv(api_client, status=400, **body)
    assert field in d["fields"], d


def test_neither_model_nor_config_is_a_400_naming_model(api_client):
    d = post(api_client, "kv-cache", {"context_tokens": 10}, 400)
    assert "model" in d["fields"]


@pytest.mark.parametrize("change, field", [
    ({"num_layers": 0}, "config.num_layers"),
    ({"attention": "sparse"}, "config.attention"),
    ({"attention": "mla"}, "config.kv_lora_rank"),
    ({"num_kv_heads": 64}, "config.num_kv_heads"),
    ({"num_experts": 8, "experts_per_token": 9, "moe_intermediate_size": 1024}, "config.experts_per_token"),
    ({"num_experts": 8}, "config.experts_per_token"),
    ({"hidden_size": 10**9}, "config.hidden_size"),
    ({"mlp": "swiglu"}, "config.mlp"),
    ({"bias": "sometimes"}, "config.bias"),
    ({"learned_position_embeddings": 0}, "config.learned_position_embeddings"),
])
def test_inline_config_is_validated(api_client, change, field):
    d = post(api_client, "kv-cache", {"config": {**LLAMA_8B_CONFIG, **change}, "context_tokens": 10}, 400)
    assert field in d["fields"], d


def test_inline_mla_config_with_its_latent_is_accepted(api_client):
    config = {**LLAMA_8B_CONFIG, "attention": "mla", "kv_lora_rank": 512, "qk_rope_head_dim": 64}
    assert post(api_client, "kv-cache", {"config": config, "context_tokens": 1})["bytes_per_token"] == 32 * 576 * 2


OPT_13B_CONFIG = {
    "num_layers": 40, "hidden_size": 5120, "num_attention_heads": 40, "num_kv_heads": 40, "head_dim": 128,
    "intermediate_size": 20480, "vocab_size": 50272, "max_position_embeddings": 2048, "attention": "mha",
    "tie_word_embeddings": True, "mlp": "plain", "bias": True, "learned_position_embeddings": 2050,
}


def test_inline_plain_mlp_config_weighs_what_the_catalog_opt_13b_does(api_client):
    inline = post(api_client, "fit", {"config": OPT_13B_CONFIG, "gpu": "h100-sxm", "context_tokens": 2048})
    catalog = post(api_client, "fit", {"model": "opt-13b", "gpu": "h100-sxm", "context_tokens": 2048})
    # 12,853,473,280 params (tests/simulators/test_modeling_catalog.py) × 2 B, all of it 16-bit in bf16
    assert inline["weight_bytes_total"] == catalog["weight_bytes_total"] == 12_853_473_280 * 2
    # activation peak of a plain MLP keeps one F-wide tensor (fc1), not two (gate, up):
    # 8192 tokens × (4h + (q + 2kv) + F) × 2 B + 256 rows × V × 4 B
    assert catalog["per_gpu_bytes"]["activations"] == 8192 * (4 * 5120 + 3 * 5120 + 20480) * 2 + 256 * 50272 * 4
    gated = post(api_client, "fit", {"config": {**OPT_13B_CONFIG, "mlp": "gated"}, "gpu": "h100-sxm",
                                     "context_tokens": 2048})
    # a gate matrix and its bias per layer: 40 · (h·F + F) more parameters
    assert gated["weight_bytes_total"] - inline["weight_bytes_total"] == 40 * (5120 * 20480 + 20480) * 2


def fit(client, status=200, **body):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 8192, "batch_size": 16}
    return post(client, "fit", {**base, **body}, status)


def test_llama_8b_fits_on_one_h100(api_client):
    d = fit(api_client)
    parts = d["per_gpu_bytes"]
    # 8,030,261,248 params (embedding 128256·4096 twice, 32 layers × 218,112,000, final norm) × 2 B
    assert parts["weights"] == 8_030_261_248 * 2
    assert parts["kv_cache"] == 131_072 * 8192 * 16
    # 8192 batched tokens × (4h + (q+2kv)·d_h + 2·F) × 2 B + 256 rows × V × 4 B of logits
    assert parts["activations"] == 8192 * (4 * 4096 + 48 * 128 + 2 * 14336) * 2 + 256 * 128256 * 4
    assert parts["runtime_overhead"] == 1.5e9
    # budget: ceil(CUDA's total for an "80 GB" H100, 79.14 GiB = 84,975,927,951 B, × vLLM's default 0.92)
    # = ceil(78,177,853,714.92) = 78,177,853,715 B, as vLLM's request_memory
    assert d["memory_bytes"] == 84_975_927_951 and d["gpu"]["marketing_memory_bytes"] == 80e9
    assert d["budget_bytes"] == 78_177_853_715
    assert d["fits"] is True and d["min_tensor_parallel"] == 1
    assert d["max_concurrent_sequences"] == (
        78_177_853_715 - parts["weights"] - parts["activations"] - 1.5e9) // (131_072 * 8192)
    assert parts["free"] == pytest.approx(84_975_927_951 - d["total_bytes_per_gpu"])


def test_llama_70b_needs_tp_2_on_h100(api_client):
    d = fit(api_client, model="llama-3.1-70b", batch_size=1)
    # 70.55e9 params × 2 B = 141.1e9 B; at TP 2: 70.55e9 + activations 1.156e9 + 1.5e9 + 8,192 · 163,840 KV
    # = 74.55e9 ≤ 78.18e9 (0.92 × the 84.98e9 B CUDA reports); against 80e9 × 0.92 = 73.6e9 it would have needed TP 4
    assert d["fits"] is False and d["min_tensor_parallel"] == 2
    assert fit(api_client, model="llama-3.1-70b", batch_size=1, tensor_parallel=2)["fits"] is True


def test_int4_weights_take_a_quarter_of_bf16_for_the_linear_layers(api_client):
    bf16, int4 = fit(api_client)["weight_bytes_total"], fit(api_client, weight_dtype="int4")["weight_bytes_total"]
    embed = 128256 * 4096 * 2 * 2  # embedding + LM head stay 16-bit
    assert int4 - embed == pytest.approx((bf16 - embed) / 4)


def test_fit_with_inline_gpu_spec(api_client):
    spec = {"memory_bytes": 24e9, "hbm_bandwidth_bytes_per_s": 1e12, "bf16_dense_flops": 165e12,
            "interconnect_bandwidth_bytes_per_s": 64e9}
    d = post(api_client, "fit", {"model": "llama-3.1-8b", "gpu_spec": spec, "context_tokens": 8192, "batch_size": 1})
    # ceil(24e9 × 0.92) = 22.08e9 B; 16.06e9 of weights + 0.97e9 of activations + 1.5e9 + 1.07e9 of KV = 19.60e9 fits
    assert d["budget_bytes"] == 22_080_000_000 and d["fits"] is True


@pytest.mark.parametrize("body, field", [
    ({"gpu": "no-such-gpu"}, "gpu"),
    ({"gpu": None}, "gpu"),
    ({"weight_dtype": "int3"}, "weight_dtype"),
    ({"gpu_memory_utilization": 1.5}, "gpu_memory_utilization"),
    ({"gpu_memory_utilization": 0}, "gpu_memory_utilization"),
    ({"batch_size": -1}, "batch_size"),
    ({"gpu": None, "gpu_spec": {"memory_bytes": -1}}, "gpu_spec.memory_bytes"),
])
def test_fit_bad_input_names_the_field(api_client, body, field):
    assert field in fit(api_client, status=400, **body)["fields"]
