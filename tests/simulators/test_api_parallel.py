"""pipeline_parallel, data_parallel and expert_parallel on fit, step-time, capacity, engine, cluster and sweeps.

The numbers are derived by hand in test_modeling_parallel.py; here: the fields reach the models, come back in the
answer, and every bad value is a 400 naming its field."""

import numpy as np
import pytest
from api_helpers import assert_finite, load_real_catalog, post

from apps.simulators.engine.engine import SimulationError
from apps.simulators.engine.metrics import SLO
from apps.simulators.engine.screen import screen_points
from apps.simulators.engine.simulate import ServingSetup, check_fits, kv_blocks
from apps.simulators.modeling import load_gpus, load_models
from apps.simulators.simulation import SETUP_FIELDS, workload_build

pytestmark = pytest.mark.django_db
DSV3_FP8 = {"model": "deepseek-v3", "weight_dtype": "fp8", "kv_dtype": "fp8"}


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def test_fit_of_deepseek_v3_with_expert_parallelism_on_8_h200(api_client):
    d = post(api_client, "fit", {**DSV3_FP8, "gpu": "h200", "context_tokens": 8192, "data_parallel": 8,
                                 "expert_parallel": 8})
    # 18,970,991,616 B non-expert on every rank + 653,908,770,816 / 8 B of experts (test_modeling_parallel)
    assert d["per_gpu_bytes"]["weights"] == 100_709_587_968 and d["fits"] is True
    assert (d["tensor_parallel"], d["data_parallel"], d["expert_parallel"], d["gpus"]) == (1, 8, 8, 8)
    # KV room per rank at vLLM's default 0.92: 33,553,693,660 B / 287,834,112 B = 116 sequences of 8k, 928 on the
    # 8 ranks (test_modeling_parallel)
    assert d["max_concurrent_sequences"] == 116 and d["max_concurrent_sequences_all_ranks"] == 928


def test_step_time_of_deepseek_v3_on_8_h100_explains_the_headroom(api_client):
    d = post(api_client, "step-time", {**DSV3_FP8, "gpu": "h100-sxm", "context_tokens": 8192, "tensor_parallel": 8})
    assert d["fits"] is False and d["feasible"] is False
    assert "with 865,957,647 B left: the problem is headroom" in d["reason"]


def test_step_time_with_wide_expert_parallelism_reports_the_all_to_all(api_client):
    d = post(api_client, "step-time", {**DSV3_FP8, "gpu": "h200", "context_tokens": 4096, "batch_size": 64,
                                       "data_parallel": 32, "expert_parallel": 32})
    # 116 all-to-alls of 193.38 µs (test_modeling_parallel): the NIC, not NVLink, sets them
    assert d["all_to_all_seconds"] == pytest.approx(116 * 193.38e-6, rel=1e-4)
    assert d["expert_imbalance"] == pytest.approx(1.11452, abs=1e-5) and d["gpus"] == 32
    assert d["deployment_tokens_per_s"] == pytest.approx(32 * d["tokens_per_s"])
    assert d["feasible"] is True and "EP 32" in d["derivation"]
    skewed = post(api_client, "step-time", {**DSV3_FP8, "gpu": "h200", "context_tokens": 4096, "batch_size": 64,
                                            "data_parallel": 32, "expert_parallel": 32, "expert_routing_skew": 1.0})
    assert skewed["expert_imbalance"] > d["expert_imbalance"] and skewed["step_seconds"] > d["step_seconds"]
    assert_finite(d)


def test_two_node_deployment_is_expressible(api_client):
    d = post(api_client, "fit", {**DSV3_FP8, "gpu": "h100-sxm", "context_tokens": 8192, "tensor_parallel": 2,
                                 "data_parallel": 8, "expert_parallel": 16})
    assert d["gpus"] == 16 and d["fits"] is True and d["per_gpu_bytes"]["weights"] == 50_354_793_984


def test_capacity_counts_the_gpus_of_a_data_parallel_replica(api_client):
    d = post(api_client, "capacity", {**DSV3_FP8, "gpu": "h200", "data_parallel": 8, "expert_parallel": 8,
                                      "workload": {"requests_per_s": 20, "prompt_tokens": 1000, "output_tokens": 200},
                                      "slo": {"ttft_p99_s": 2.0, "tpot_s": 0.1}})
    assert d["feasible"] is True and d["tp"] == 1 and d["gpus"] == d["replicas"] * 8


@pytest.mark.parametrize("body, field", [
    ({"model": "llama-3.1-8b", "data_parallel": 2, "expert_parallel": 2}, "expert_parallel"),   # no experts
    ({**DSV3_FP8, "tensor_parallel": 2, "data_parallel": 2, "expert_parallel": 8}, "expert_parallel"),  # ≠ TP · DP
    ({**DSV3_FP8, "data_parallel": 3, "expert_parallel": 3}, "expert_parallel"),  # 3 does not divide 256 experts
    ({"model": "llama-3.1-8b", "pipeline_parallel": 33}, "pipeline_parallel"),  # 32 layers
    ({"model": "llama-3.1-8b", "pipeline_parallel": 0}, "pipeline_parallel"),
    ({"model": "llama-3.1-8b", "data_parallel": 0}, "data_parallel"),
    ({"model": "llama-3.1-8b", "expert_parallel": 2000}, "expert_parallel"),
    ({"model": "llama-3.1-8b", "expert_routing_skew": -1}, "expert_routing_skew"),
])
def test_bad_parallelism_is_a_400_naming_the_field(api_client, body, field):
    for name in ("fit", "step-time"):
        if name == "fit" and field == "expert_routing_skew":
            continue
        d = post(api_client, name, {"gpu": "h200", "context_tokens": 1024, **body}, 400)
        assert field in d["fields"], (name, d)


def test_capacity_with_expert_parallelism_needs_a_tp_it_implies(api_client):
    d = post(api_client, "capacity", {**DSV3_FP8, "gpu": "h200", "data_parallel": 4, "expert_parallel": 64,
                                      "workload": {"requests_per_s": 1, "prompt_tokens": 100, "output_tokens": 10},
                                      "slo": {"ttft_p99_s": 2.0, "tpot_s": 0.1}}, 400)
    assert "expert_parallel" in d["fields"]  # EP 64 over DP 4 would need TP 16


ENGINE = "/api/v1/simulators/engine/"
CLUSTER = "/api/v1/simulators/cluster/"
SMALL = {"num_requests": 20, "arrival_rate_per_s": 10, "prompt_tokens": 500, "output_tokens": 20}


def test_engine_runs_a_data_and_expert_parallel_deployment(api_client):
    r = api_client.post(ENGINE, {**DSV3_FP8, "gpu": "h200", "data_parallel": 8, "expert_parallel": 8,
                                 "workload": SMALL}, format="json")
    assert r.status_code == 200, r.json()
    d = r.json()
    assert d["completed"] == 20 and d["cost"]["gpus"] == 8
    # the deployment's KV cache is its 8 ranks' (each holds its own sequences): 8 × a rank's blocks
    assert d["kv_cache"]["blocks_per_replica"] % 8 == 0


def test_cluster_counts_every_gpu_of_each_replica(api_client):
    r = api_client.post(CLUSTER, {"model": "llama-3.1-8b", "gpu": "h100-sxm", "tensor_parallel": 2,
                                  "pipeline_parallel": 2, "data_parallel": 2, "replicas": 2, "workload": SMALL},
                        format="json")
    assert r.status_code == 200, r.json()
    assert r.json()["cost"]["gpus"] == 2 * 2 * 2 * 2


@pytest.mark.parametrize("url", [ENGINE, CLUSTER])
def test_engine_refuses_bad_expert_parallelism_naming_the_field(api_client, url):
    r = api_client.post(url, {"model": "llama-3.1-8b", "gpu": "h100-sxm", "expert_parallel": 2, "data_parallel": 2,
                              "workload": SMALL}, format="json")
    assert r.status_code == 400 and "expert_parallel" in r.json()["fields"]


@pytest.mark.parametrize("field, value", [("data_parallel", 0), ("expert_parallel", 0), ("pipeline_parallel", 65)])
def test_sweep_base_validates_the_parallel_fields(learner_client, field, value):
    r = learner_client.post("/api/v1/simulators/sweeps/", {
        "model": "llama-3.1-8b", "gpu": "h100-sxm", field: value, "workload": SMALL,
        "grid": {"max_num_seqs": [8, 64]}}, format="json")
    assert r.status_code == 400 and field in r.json()["fields"]


def test_the_sweep_screen_prices_a_data_and_expert_parallel_deployment():
    """The two-stage sweep's screen honours the layout: what the engine runs on 8 × H200 it calls feasible, what the
    engine refuses on 8 × H100 (100.7e9 B of weights per GPU) it refuses with the engine's words."""
    model, gpus = load_models()["deepseek-v3"], load_gpus()
    w = workload_build(workload=SMALL, seed=0)
    points = [{**DSV3_FP8, "gpu": g, "data_parallel": 8, "expert_parallel": 8, "replicas": 1} for g in ("h200", "h100-sxm")]
    screen = screen_points(model, {g: gpus[g] for g in ("h200", "h100-sxm")}, points, w, SLO())
    assert list(screen.feasible) == [True, False]
    setup = ServingSetup(model, gpus["h100-sxm"], **{k: points[1][k] for k in SETUP_FIELDS if k in points[1]})
    with pytest.raises(SimulationError) as refused:
        check_fits(setup, w, kv_blocks(setup))
    assert screen.error[1] == f"{refused.value.field}: {refused.value.message}"
    assert np.isfinite(screen.usd_per_million_tokens[0])


def test_moe_answers_say_the_measured_moe_runs_were_slower_and_dense_answers_do_not(api_client):
    """benchmarks/calibration.py: held out, DeepSeek-R1 measured 0.27 of the expected throughput (dstack, vLLM 0.7 and
    SGLang 0.4, geometric mean), 0.14-0.85 (GPUStack, vLLM 0.11) and 0.56-0.78 (TensorRT-LLM DEP); step time and the
    throughput-latency curve carry that warning."""
    base = {"gpu": "h200", "weight_dtype": "fp8", "kv_dtype": "fp8"}
    for model, warned in (("deepseek-v3", True), ("llama-3.1-70b", False)):
        step = post(api_client, "step-time", {**base, "model": model, "phase": "decode", "batch_size": 8,
                                              "context_tokens": 2048, "tensor_parallel": 8})
        curve = post(api_client, "throughput-latency", {**base, "model": model, "prompt_tokens": 1000,
                                                        "output_tokens": 200, "tensor_parallel": 8})
        for answer in (step, curve):
            said = [w for w in answer["warnings"] if "mixture-of-experts" in w]
            assert bool(said) is warned, (model, answer["warnings"])
            assert not warned or ("TensorRT-LLM" in said[0] and "vLLM 0.11" in said[0] and "optimistic" in said[0])
