"""POST /api/v1/simulators/engine/ and /cluster/."""

import json

import pytest

pytestmark = pytest.mark.django_db
ENGINE = "/api/v1/simulators/engine/"
CLUSTER = "/api/v1/simulators/cluster/"


def body(**over):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "seed": 1,
            "workload": {"num_requests": 100, "arrival_rate_per_s": 20,
                         "prompt_tokens": {"dist": "uniform", "low": 100, "high": 600},
                         "output_tokens": {"dist": "lognormal", "mean": 80, "sigma": 0.5}}}
    return {**base, **over}


def test_engine_returns_latency_percentiles_and_invariants(api_client):
    r = api_client.post(ENGINE, body(), format="json")
    assert r.status_code == 200
    data = r.json()
    json.dumps(data, allow_nan=False)  # no NaN or inf anywhere
    for key in ("ttft_s", "tpot_s", "e2e_s"):
        assert set(data[key]) >= {"p50", "p90", "p99"}
        assert 0 < data[key]["p50"] <= data[key]["p90"] <= data[key]["p99"]
    assert data["completed"] == 100
    assert data["invariants"]["tokens_conserved"] is True
    assert len(data["series"]["t_s"]) <= 500
    assert data["goodput"]["requests_per_s"] <= data["throughput"]["requests_per_s"]


def test_engine_accepts_a_trace(api_client):
    trace = [[0.0, 100, 5], [0.1, 200, 5, 3], {"arrival_s": 0.2, "prompt_tokens": 50, "output_tokens": 2}]
    r = api_client.post(ENGINE, body(workload={"trace": trace}), format="json")
    assert r.status_code == 200
    assert r.json()["num_requests"] == 3


def test_engine_accepts_inline_gpu_spec(api_client):
    spec = {"memory_bytes": 80e9, "hbm_bandwidth_bytes_per_s": 2e12, "bf16_dense_flops": 300e12,
            "interconnect_bandwidth_bytes_per_s": 600e9}
    payload = body(gpu_spec=spec)
    del payload["gpu"]
    r = api_client.post(ENGINE, payload, format="json")
    assert r.status_code == 200, r.json()


@pytest.mark.parametrize(("change", "field"), [
    ({"workload": {"num_requests": 2001}}, "workload.num_requests"),
    ({"workload": {"prompt_tokens": {"dist": "zipf"}}}, "workload.prompt_tokens.dist"),
    ({"workload": {"output_tokens": {"dist": "uniform", "low": 10, "high": 5}}}, "workload.output_tokens.high"),
    ({"workload": {"trace": [[0, 10]]}}, "workload.trace.0"),
    ({"workload": {"arrival_rate_per_s": 0}}, "workload.arrival_rate_per_s"),
    ({"model": "gpt-17"}, "model"),
    ({"gpu": "tpu-v9"}, "gpu"),
    ({"tensor_parallel": 3}, "tensor_parallel"),
    ({"max_num_seqs": 0}, "max_num_seqs"),
    ({"block_size": 15}, "block_size"),
    ({"gpu_memory_utilization": 1.5}, "gpu_memory_utilization"),
    ({"kv_dtype": "int4"}, "kv_dtype"),
    ({"slo": {"ttft_s": -1}}, "slo.ttft_s"),
    ({"model": "llama-3.1-405b"}, "gpu"),  # 810 GB of weights on one 80 GB GPU
    ({"workload": {"prompt_tokens": 131_000, "output_tokens": 1000}}, "workload.prompt_tokens"),  # > context
    ({"chunked_prefill": False, "max_num_batched_tokens": 64}, "max_num_batched_tokens"),
])
def test_engine_bad_input_names_the_field(api_client, change, field):
    r = api_client.post(ENGINE, body(**change), format="json")
    assert r.status_code == 400, r.json()
    assert field in r.json()["fields"], r.json()


def test_cluster_reports_each_replica(api_client):
    r = api_client.post(CLUSTER, body(replicas=3, router="least_outstanding"), format="json")
    assert r.status_code == 200
    data = r.json()
    assert len(data["replicas"]) == 3
    assert sum(x["requests"] for x in data["replicas"]) == 100
    assert data["cost"]["gpus"] == 3


def test_cluster_disaggregation(api_client):
    r = api_client.post(CLUSTER, body(disaggregation={"prefill_replicas": 1, "decode_replicas": 2}), format="json")
    assert r.status_code == 200
    assert r.json()["pools"] == {"prefill": 1, "decode": 2}


@pytest.mark.parametrize(("change", "field"), [
    ({"replicas": 17}, "replicas"),
    ({"router": "random"}, "router"),
    ({"disaggregation": {"prefill_replicas": 10, "decode_replicas": 10}}, "disaggregation"),
    ({"disaggregation": {"prefill_replicas": 0, "decode_replicas": 1}}, "disaggregation.prefill_replicas"),
])
def test_cluster_bad_input_names_the_field(api_client, change, field):
    r = api_client.post(CLUSTER, body(**change), format="json")
    assert r.status_code == 400
    assert field in r.json()["fields"], r.json()
