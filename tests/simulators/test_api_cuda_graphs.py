"""cuda_graphs through the API: false is vLLM's enforce_eager, and every step pays each layer's kernel launches
(apps/simulators/modeling/step_overhead.py: EAGER_LAUNCH_S_PER_LAYER, 46.9 µs a layer)."""

import pytest
from api_helpers import load_real_catalog, post

pytestmark = pytest.mark.django_db
# Llama 3.1 8B: 32 layers × 46.9 µs = 1.5008 ms more per step in eager mode.
EAGER_EXTRA_S = 32 * 46.9e-6


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def test_step_time_and_the_curve_add_the_eager_launches(api_client):
    body = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "phase": "decode", "batch_size": 1, "context_tokens": 1}
    graphed, eager = post(api_client, "step-time", body), post(api_client, "step-time", {**body, "cuda_graphs": False})
    assert eager["step_seconds"] - graphed["step_seconds"] == pytest.approx(EAGER_EXTRA_S, rel=1e-6)
    curve = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "prompt_tokens": 512, "output_tokens": 128}
    a, b = post(api_client, "throughput-latency", curve), post(api_client, "throughput-latency", {**curve, "cuda_graphs": False})
    assert b["points"][0]["decode_step_seconds"] - a["points"][0]["decode_step_seconds"] == pytest.approx(EAGER_EXTRA_S, rel=1e-6)


def test_the_engine_takes_it_and_bad_values_are_named(api_client):
    body = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "workload": {"num_requests": 5, "arrival_rate_per_s": 1,
                                                                     "prompt_tokens": 64, "output_tokens": 16}}
    graphed = api_client.post("/api/v1/simulators/engine/", body, format="json").json()
    eager = api_client.post("/api/v1/simulators/engine/", {**body, "cuda_graphs": False}, format="json").json()
    assert eager["tpot_s"]["p50"] > graphed["tpot_s"]["p50"] + 0.9 * EAGER_EXTRA_S
    response = api_client.post("/api/v1/simulators/step-time/", {"model": "llama-3.1-8b", "gpu": "h100-sxm",
                                                                 "context_tokens": 1, "cuda_graphs": "sometimes"},
                               format="json")
    assert response.status_code == 400 and "cuda_graphs" in response.json()["fields"]
