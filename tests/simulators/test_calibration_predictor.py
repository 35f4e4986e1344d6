"""One predictor: benchmarks/calibration.py scores the priors with the same model the throughput-latency endpoint
answers with, so a run at a fixed concurrency is predicted as the endpoint's point at that batch."""

from dataclasses import replace

import pytest
from api_helpers import load_real_catalog, post

from apps.simulators.modeling import load_gpus
from apps.simulators.modeling.roofline import prior_basis
from benchmarks import calibration

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


@pytest.mark.parametrize("gpu, dtype, batch", [("h100-sxm", "fp8", 64), ("b200", "fp8", 16), ("h200", "bf16", 1)])
def test_the_calibration_predicts_what_the_throughput_latency_endpoint_answers(api_client, gpu, dtype, batch):
    row = calibration.Row("test", "t", "llama-3.1-8b", gpu, 1, dtype, dtype if dtype != "bf16" else "bf16",
                          "concurrency" if batch > 1 else "single", batch, 0.9, "output_tokens_per_s", 1000.0,
                          1000.0, 1.0)
    predicted = calibration.predict(row, prior_basis(load_gpus()[gpu], dtype)[0])
    curve = post(api_client, "throughput-latency", {"model": "llama-3.1-8b", "gpu": gpu, "prompt_tokens": 1000,
                                                     "output_tokens": 1000, "weight_dtype": dtype,
                                                     "kv_dtype": row.kv_dtype})
    point = next(p for p in curve["points"] if p["batch_size"] == batch)
    assert predicted == pytest.approx(point["tokens_per_s"], rel=1e-9)
    tpot = calibration.predict(replace(row, metric="tpot_ms"), prior_basis(load_gpus()[gpu], dtype)[0])
    assert tpot == pytest.approx(point["tpot_seconds"] * 1e3, rel=1e-9)
