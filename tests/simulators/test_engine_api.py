"""POST /api/v1/simulators/engine/ and /cluster/."""

import json

import pytest
from api_helpers import load_real_catalog
from django.contrib.auth.models import AnonymousUser

from apps.core.exceptions import InvalidInput
from apps.simulators.simulation import MAX_TOKENS, SYNC_MAX_STEPS, run_simulation

pytestmark = pytest.mark.django_db
ENGINE = "/api/v1/simulators/engine/"
CLUSTER = "/api/v1/simulators/cluster/"


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


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
    # a misspelt key of a distribution is refused, not read as a uniform with a missing bound
    ({"workload": {"prompt_tokens": {"dist": "uniform", "low": 10, "high": 50, "hihg": 60}}},
     "workload.prompt_tokens.hihg"),
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
    ({"long_prefill_token_threshold": -1}, "long_prefill_token_threshold"),
    ({"long_prefill_token_threshold": 1.5}, "long_prefill_token_threshold"),
    ({"scheduler_reserve_full_isl": "sometimes"}, "scheduler_reserve_full_isl"),
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
    wide = api_client.post(CLUSTER, body(disaggregation={"prefill_replicas": 1, "decode_replicas": 2,
                                                         "prefill_tensor_parallel": 4}), format="json")
    assert wide.status_code == 200, wide.json()
    assert wide.json()["cost"]["gpus"] == 1 * 4 + 2 * 1  # the prefill pool at TP 4, the decode pool at the TP 1


@pytest.mark.parametrize(("change", "field"), [
    ({"replicas": 17}, "replicas"),
    ({"router": "random"}, "router"),
    ({"disaggregation": {"prefill_replicas": 10, "decode_replicas": 10}}, "disaggregation"),
    ({"disaggregation": {"prefill_replicas": 0, "decode_replicas": 1}}, "disaggregation.prefill_replicas"),
    ({"disaggregation": {"prefill_replicas": 1, "decode_replicas": 1, "decode_tensor_parallel": 3}},
     "disaggregation.decode_tensor_parallel"),
    # Qwen2.5-7B's 28 attention heads do not split over 8 GPUs: the prefill pool's own TP is named
    ({"model": "qwen2.5-7b", "disaggregation": {"prefill_replicas": 1, "decode_replicas": 1,
                                                "prefill_tensor_parallel": 8}}, "disaggregation.prefill_tensor_parallel"),
])
def test_cluster_bad_input_names_the_field(api_client, change, field):
    r = api_client.post(CLUSTER, body(**change), format="json")
    assert r.status_code == 400
    assert field in r.json()["fields"], r.json()


# ---- bounded work: a synchronous request always answers quickly ---------------------------------
def heavy(**over):
    return {"model": "llama-3.1-8b", "gpu": "h100-sxm", "seed": 0,
            "workload": {"num_requests": 1, "arrival_rate_per_s": 1000, "prompt_tokens": 100, "output_tokens": 100},
            **over}


def test_too_many_tokens_is_refused_up_front_naming_the_workload(api_client):
    # 2,000 requests of 1,950 + 100 tokens = 4,100,000 tokens > 4,000,000.
    wl = {"num_requests": 2000, "arrival_rate_per_s": 100, "prompt_tokens": 1950, "output_tokens": 100}
    assert 2000 * 2050 > MAX_TOKENS
    r = api_client.post(ENGINE, heavy(workload=wl), format="json")
    assert r.status_code == 400
    assert "workload" in r.json()["fields"]
    assert "4,100,000 tokens" in r.json()["fields"]["workload"][0]


def test_a_workload_needing_too_many_steps_is_refused_up_front(api_client):
    # One request of 125,000 output tokens needs 125,000 decode steps > the cap, whatever the knobs.
    assert 125_000 > SYNC_MAX_STEPS
    r = api_client.post(ENGINE, heavy(workload={"num_requests": 1, "arrival_rate_per_s": 1, "prompt_tokens": 10,
                                                "output_tokens": 125_000}), format="json")
    assert r.status_code == 400
    assert "workload.output_tokens" in r.json()["fields"]
    # max_num_seqs 1 serialises 2,000 requests of 70 output tokens: 140,000 steps.
    wl = {"num_requests": 2000, "arrival_rate_per_s": 100, "prompt_tokens": 10, "output_tokens": 70}
    r = api_client.post(CLUSTER, heavy(workload=wl, max_num_seqs=1, replicas=16), format="json")
    assert r.status_code == 400
    assert "140,000 engine steps" in r.json()["fields"]["workload.output_tokens"][0]


def test_a_trace_that_is_too_long_names_the_trace(api_client):
    r = api_client.post(ENGINE, heavy(workload={"trace": [[0, 10, 125_000]]}), format="json")
    assert r.status_code == 400
    assert "workload.trace" in r.json()["fields"]


def test_work_caps_are_counted_over_all_replicas():
    def simulation_run(**kwargs):
        return run_simulation(user=AnonymousUser(), **kwargs)

    # 8 requests 10 s apart, each alone: 1 prefill step (first token) + 99 decode steps; 4 replicas × 200 steps.
    params = heavy(workload={"trace": [[10.0 * i, 50, 100] for i in range(8)]}, replicas=4)
    assert simulation_run(params={**params, "replicas": 1})["steps"] == 800
    assert simulation_run(params=params, max_steps=800)["steps"] == 800
    with pytest.raises(InvalidInput) as err:
        simulation_run(params=params, max_steps=799)
    assert err.value.field == "workload" and "799 engine steps" in err.value.message
    # A 16-token budget binds with 100 requests running: steps schedule requests one at a time (3,000
    # tokens, at most 16 a step, so >= 188 steps and well over 100 such entries; at most one per token).
    wide = heavy(workload={"num_requests": 100, "arrival_rate_per_s": 1000, "prompt_tokens": 10,
                           "output_tokens": 20}, max_num_batched_tokens=16)
    assert simulation_run(params=wide, max_entries=3000)["completed"] == 100
    with pytest.raises(InvalidInput) as err:
        simulation_run(params=wide, max_entries=100)
    assert err.value.field == "workload" and "100 requests scheduled one at a time" in err.value.message


@pytest.mark.parametrize("change", [
    {"workload": {"num_requests": 1, "arrival_rate_per_s": 1, "prompt_tokens": 1000, "output_tokens": 119_000}},
    {"max_num_seqs": 1, "workload": {"num_requests": 2000, "arrival_rate_per_s": 100, "prompt_tokens": 10,
                                     "output_tokens": 59}},
    {"max_num_batched_tokens": 16, "max_num_seqs": 4096,
     "workload": {"num_requests": 2000, "arrival_rate_per_s": 1000, "prompt_tokens": 100, "output_tokens": 150}},
])
def test_the_heaviest_legal_requests_are_answered_within_the_step_cap(learner_client, change):
    """Their CPU time is measured in benchmarks/abuse.py (the heaviest accepted request per endpoint); here the work is bounded: an answer, and never more
    engine steps than a signed-in request may run."""
    r = learner_client.post(ENGINE, heavy(**change), format="json")
    assert r.status_code in (200, 400), r.json()
    if r.status_code == 200:
        assert 0 < r.json()["steps"] <= SYNC_MAX_STEPS
    else:
        assert "workload" in r.json()["fields"]


@pytest.mark.parametrize(("change", "steps"), [
    # One request of 7,999 output tokens: 1 prefill step (the first token) + 7,998 decode steps = 7,999 <= 8,000.
    ({"workload": {"num_requests": 1, "arrival_rate_per_s": 1, "prompt_tokens": 1000, "output_tokens": 7_999}},
     7_999),
    # max_num_seqs 1 serialises 130 requests of 59 output tokens: 130 x 59 = 7,670 steps.
    ({"max_num_seqs": 1, "workload": {"num_requests": 130, "arrival_rate_per_s": 100, "prompt_tokens": 10,
                                      "output_tokens": 59}}, 7_670),
])
def test_anonymous_requests_run_up_to_their_smaller_cap(api_client, change, steps):
    r = api_client.post(ENGINE, heavy(**change), format="json")
    assert r.status_code == 200, r.json()
    assert r.json()["steps"] == steps


def test_an_anonymous_request_past_its_cap_is_told_the_limit_and_that_signing_in_raises_it(api_client, learner_client):
    from apps.simulators.simulation import ANON_MAX_STEPS

    # 8,001 output tokens need 8,001 engine steps > 8,000; signed in, the same request runs.
    body = heavy(workload={"num_requests": 1, "arrival_rate_per_s": 1, "prompt_tokens": 10, "output_tokens": 8_001})
    r = api_client.post(ENGINE, body, format="json")
    assert r.status_code == 400
    message = r.json()["fields"]["workload.output_tokens"][0]
    assert f"at most {ANON_MAX_STEPS:,}" in message and "signed in, up to 120,000 engine steps" in message
    assert learner_client.post(ENGINE, body, format="json").status_code == 200


def test_trace_steps_returns_the_first_steps_as_the_engine_ran_them(api_client):
    data = api_client.post(ENGINE, body(trace_steps=40), format="json").json()
    log = data["step_log"]
    assert [row["step"] for row in log] == list(range(1, 41))
    blocks = data["kv_cache"]["blocks_per_replica"]
    for before, row in zip([None, *log], log, strict=False):
        assert 0 <= row["kv_blocks_used"] <= blocks and 1 <= row["running"] <= 256 and row["tokens"] >= 1
        assert row["duration_s"] > 0
        if before:
            assert row["end_s"] >= before["end_s"] + row["duration_s"] - 2e-9  # rounded to the nanosecond
    assert "step_log" not in api_client.post(ENGINE, body(), format="json").json()


@pytest.mark.parametrize("value", [-1, 501, "many", 2.5])
def test_trace_steps_out_of_range_names_the_field(api_client, value):
    r = api_client.post(ENGINE, body(trace_steps=value), format="json")
    assert r.status_code == 400 and "trace_steps" in r.json()["fields"]


def test_long_prefill_token_threshold_caps_each_prefill_chunk_while_another_request_waits(api_client):
    two_long = {"trace": [[0.0, 2000, 3], [0.0, 2000, 3]]}
    capped = api_client.post(ENGINE, body(workload=two_long, trace_steps=2, long_prefill_token_threshold=256),
                             format="json").json()["step_log"]
    free = api_client.post(ENGINE, body(workload=two_long, trace_steps=2), format="json").json()["step_log"]
    # Both prompts are admitted in step 1 (budget 8192): 256 tokens each when capped, all 2000 each when not.
    assert [row["tokens"] for row in capped] == [512, 512]
    assert free[0]["tokens"] == 4000 and free[1]["tokens"] == 2
    alone = api_client.post(ENGINE, body(workload={"trace": [[0.0, 2000, 3]]}, trace_steps=1,
                                         long_prefill_token_threshold=256), format="json").json()["step_log"]
    assert alone[0]["tokens"] == 2000  # a request alone is not capped: there is nobody to starve


def test_pools_at_their_own_tensor_parallelism_need_not_fit_at_the_base_one(api_client):
    """Llama 3.1 70B in BF16 (141 GB of weights) does not fit one H100 (TP 1), but pools of TP 4 each do: with both
    pools' TPs given, the base tensor_parallel places nothing."""
    wl = {"num_requests": 10, "arrival_rate_per_s": 5, "prompt_tokens": 200, "output_tokens": 20}
    split = {"prefill_replicas": 1, "decode_replicas": 1, "prefill_tensor_parallel": 4, "decode_tensor_parallel": 4}
    r = api_client.post(CLUSTER, body(model="llama-3.1-70b", workload=wl, disaggregation=split), format="json")
    assert r.status_code == 200, r.json()
    assert r.json()["cost"]["gpus"] == 8 and r.json()["completed"] == 10
    colocated = api_client.post(CLUSTER, body(model="llama-3.1-70b", workload=wl), format="json")
    assert colocated.status_code == 400 and "gpu" in colocated.json()["fields"], colocated.json()
