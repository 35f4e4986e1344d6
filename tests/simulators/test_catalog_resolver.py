"""One resolver: an inline GPU spec means the same thing (price, defaults, errors) on an analytic endpoint, the
engine endpoint and a sweep point."""

import pytest
from api_helpers import BASE, load_real_catalog

from apps.simulators.simulation import point_compute

pytestmark = pytest.mark.django_db

H100_LIKE = {"memory_bytes": 80e9, "hbm_bandwidth_bytes_per_s": 3.35e12, "bf16_dense_flops": 989e12,
             "interconnect_bandwidth_bytes_per_s": 900e9}
WORKLOAD = {"num_requests": 20, "arrival_rate_per_s": 5, "prompt_tokens": 200, "output_tokens": 20}


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def fit_body(spec):
    return {"model": "llama-3.1-8b", "gpu_spec": spec, "context_tokens": 4096, "batch_size": 1}


def engine_body(spec):
    return {"model": "llama-3.1-8b", "gpu_spec": spec, "seed": 1, "workload": WORKLOAD}


def sweep_body(spec):
    return {**engine_body(spec), "grid": {"max_num_seqs": [8, 16]}}


@pytest.mark.parametrize(("spec", "price"), [({**H100_LIKE, "price_per_hour_usd": 3.5}, 3.5), (H100_LIKE, 0.0)])
def test_the_same_inline_gpu_costs_the_same_everywhere(learner_client, spec, price):
    fit = learner_client.post(f"{BASE}/fit/", fit_body(spec), format="json")
    assert fit.status_code == 200, fit.json()
    assert fit.json()["gpu"]["price_per_hour_usd"] == price
    engine = learner_client.post(f"{BASE}/engine/", engine_body(spec), format="json")
    assert engine.status_code == 200, engine.json()
    cost = engine.json()["cost"]
    # One replica at TP 1 is one GPU: dollars per hour are the hourly price itself.
    assert cost["gpus"] == 1 and cost["usd_per_hour"] == pytest.approx(price)
    metrics, _ = point_compute(user=learner_client.user, request=sweep_body(spec),
                               grid_values={"max_num_seqs": 8})
    assert metrics["feasible"] and metrics["usd_per_hour"] == pytest.approx(price)


@pytest.mark.parametrize(("change", "field"), [
    ({"memory_bytes": "lots"}, "gpu_spec.memory_bytes"),
    ({"bf16_dense_flops": 1e-300}, "gpu_spec.bf16_dense_flops"),
    ({"price_per_hour_usd": -1}, "gpu_spec.price_per_hour_usd"),
    ({"hbm_bandwidth_bytes_per_s": None}, "gpu_spec.hbm_bandwidth_bytes_per_s"),
])
def test_the_same_bad_inline_gpu_is_refused_the_same_way_everywhere(learner_client, change, field):
    spec = {**H100_LIKE, **change}
    answers = [learner_client.post(f"{BASE}/{name}/", body(spec), format="json")
               for name, body in (("fit", fit_body), ("engine", engine_body), ("cluster", engine_body),
                                  ("sweeps", sweep_body))]
    assert [r.status_code for r in answers] == [400] * 4
    messages = [r.json()["fields"][field] for r in answers]
    assert all(m == messages[0] for m in messages), messages


def test_a_model_given_twice_is_refused_on_the_engine_too(learner_client):
    config = {"num_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_kv_heads": 3, "head_dim": 16,
              "intermediate_size": 128, "vocab_size": 1000, "attention": "gqa"}
    bodies = {"kv-cache": {"config": config, "context_tokens": 10},
              "engine": {**engine_body(H100_LIKE), "config": config, "model": None}}
    for name, body in bodies.items():
        r = learner_client.post(f"{BASE}/{name}/", body, format="json")
        assert r.status_code == 400
        assert "config.num_kv_heads" in r.json()["fields"], r.json()


def test_a_draft_catalog_gpu_is_hidden_from_learners_on_every_path(learner_client):
    from apps.core.models import Status
    from apps.simulators.models import GPU

    GPU.objects.filter(slug="h100-sxm").update(status=Status.DRAFT)
    body = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "seed": 1, "workload": WORKLOAD}
    for name, payload in (("fit", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 100}),
                          ("engine", body), ("sweeps", {**body, "grid": {"max_num_seqs": [8]}})):
        r = learner_client.post(f"{BASE}/{name}/", payload, format="json")
        assert r.status_code == 400 and "gpu" in r.json()["fields"], (name, r.json())
