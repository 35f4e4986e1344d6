"""step-time, throughput-latency, capacity and request-walk: roofline numbers derived by hand, ranges, 400s."""

import pytest
from api_helpers import assert_finite, load_real_catalog, post

pytestmark = pytest.mark.django_db
H100_RIDGE = 989.4e12 / 3.35e12  # ≈ 295 FLOP/byte
LLAMA_8B_STEP_WEIGHTS = 8_030_261_248 * 2 - 128256 * 4096 * 2  # all weights but the embedding table (a lookup)


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def step(client, status=200, **body):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 2048, "batch_size": 1}
    return post(client, "step-time", {**base, **body}, status)


def test_decode_at_batch_one_is_memory_bound(api_client):
    d = step(api_client, phase="decode")
    assert d["ridge_point_flops_per_byte"] == pytest.approx(H100_RIDGE)
    assert d["weight_bytes"] == LLAMA_8B_STEP_WEIGHTS
    assert d["kv_bytes"] == 131_072 * (2048 + 1)  # read 2048 cached tokens, write one
    assert d["memory_seconds"] == pytest.approx(d["bytes"] / (3.35e12 * 0.75))
    assert d["compute_seconds"] == pytest.approx(d["flops"] / (989.4e12 * 0.45))
    assert d["bound"] == "memory" and d["arithmetic_intensity_flops_per_byte"] < 2
    assert d["step_seconds_range"][0] < d["step_seconds"] < d["step_seconds_range"][1]
    assert d["tokens_per_s"] == pytest.approx(1 / d["step_seconds"])
    assert d["note"].startswith("Memory-bound")


def test_prefill_of_a_long_prompt_is_compute_bound(api_client):
    d = step(api_client, phase="prefill", context_tokens=4096)
    assert d["tokens"] == 4096 and d["bound"] == "compute"
    assert d["arithmetic_intensity_flops_per_byte"] > H100_RIDGE
    phases = {p["phase"]: p for p in d["roofline"]["points"]}
    assert phases["prefill"]["bound"] == "compute" and phases["decode"]["bound"] == "memory"


def test_tensor_parallel_adds_communication(api_client):
    assert step(api_client)["communication_seconds"] == 0
    assert step(api_client, tensor_parallel=2)["communication_seconds"] > 0


def test_crossover_batch_when_context_is_short(api_client):
    d = step(api_client, context_tokens=16)
    assert d["crossover_reachable"] is True
    at = step(api_client, context_tokens=16, batch_size=int(d["crossover_batch"]) + 50)
    assert at["compute_seconds"] > at["memory_seconds"]


@pytest.mark.parametrize("body, field", [
    ({"phase": "verify"}, "phase"), ({"batch_size": 0}, "batch_size"), ({"context_tokens": 0}, "context_tokens"),
    ({"gpu": "tpu"}, "gpu"), ({"weight_dtype": "fp6"}, "weight_dtype"), ({"tensor_parallel": 5000}, "tensor_parallel"),
])
def test_step_time_bad_input(api_client, body, field):
    assert field in step(api_client, status=400, **body)["fields"]


def test_extreme_but_valid_inputs_stay_finite(api_client):
    assert_finite(step(api_client, batch_size=1_000_000, context_tokens=5_000_000, tensor_parallel=1024))


def curve(client, status=200, **body):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "prompt_tokens": 2048, "output_tokens": 256}
    return post(client, "throughput-latency", {**base, **body}, status)


def test_throughput_grows_with_batch_until_memory_is_full(api_client):
    d = curve(api_client)
    batches = [p["batch_size"] for p in d["points"]]
    assert batches[:4] == [1, 2, 4, 8] and batches[-1] == d["max_batch"]
    # KV budget ÷ KV per sequence at 2048 + 256 tokens
    kv_room = 72e9 - 8_030_261_248 * 2 - (8192 * 51200 * 2 + 256 * 128256 * 4) - 1.5e9
    assert d["max_batch"] == int(kv_room // (131_072 * 2304))
    speeds = [p["tokens_per_s"] for p in d["points"]]
    assert speeds == sorted(speeds)
    for p in d["points"]:
        assert p["tokens_per_s"] == pytest.approx(p["batch_size"] / p["tpot_seconds"])
        assert p["tokens_per_s_range"][0] <= p["tokens_per_s"] <= p["tokens_per_s_range"][1]


def test_a_model_that_does_not_fit_gives_an_empty_curve(api_client):
    d = curve(api_client, model="llama-3.1-405b")
    assert d["points"] == [] and d["max_batch"] == 0 and "fits" in d["note"]


@pytest.mark.parametrize("body, field", [({"prompt_tokens": 0}, "prompt_tokens"), ({"max_num_seqs": 0}, "max_num_seqs"),
                                         ({"output_tokens": -1}, "output_tokens")])
def test_throughput_latency_bad_input(api_client, body, field):
    assert field in curve(api_client, status=400, **body)["fields"]


def capacity(client, status=200, **body):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm",
            "workload": {"requests_per_s": 50, "prompt_tokens": 1000, "output_tokens": 200},
            "slo": {"ttft_p99_s": 1.0, "tpot_s": 0.05}}
    return post(client, "capacity", {**base, **body}, status)


def test_capacity_cost_follows_from_gpus_and_price(api_client):
    d = capacity(api_client, price_per_gpu_hour_usd=2.0)
    assert d["feasible"] is True and d["gpus"] == d["replicas"] * d["tp"]
    assert d["usd_per_hour"] == d["gpus"] * 2.0
    assert d["usd_per_million_tokens"] == pytest.approx(1e6 * d["usd_per_hour"] / (3600 * 50 * 1200))
    assert d["gpus_range"][0] <= d["gpus"] <= d["gpus_range"][1]
    assert d["limiting_factor"] in ("ttft_slo", "tpot_slo", "kv_memory", "max_utilization")


def test_capacity_uses_the_catalog_price_by_default(api_client):
    d = capacity(api_client)
    assert d["usd_per_hour"] == pytest.approx(d["gpus"] * 2.99)


def test_impossible_tpot_is_infeasible_not_an_error(api_client):
    d = capacity(api_client, slo={"ttft_p99_s": 1.0, "tpot_s": 0.0001})
    assert d["feasible"] is False and d["limiting_factor"] == "tpot_slo" and d["gpus"] == 0


@pytest.mark.parametrize("body, field", [
    ({"workload": {"requests_per_s": 0, "prompt_tokens": 10, "output_tokens": 10}}, "workload.requests_per_s"),
    ({"slo": {"ttft_p99_s": -1, "tpot_s": 0.05}}, "slo.ttft_p99_s"),
    ({"slo": {"ttft_p99_s": 1}}, "slo.tpot_s"),
    ({"tensor_parallel": 3}, "tensor_parallel"),
    ({"model": "llama-3.1-405b", "tensor_parallel": 1, "workload": {"requests_per_s": 1, "prompt_tokens": 10, "output_tokens": 10}}, None),
    ({"price_per_gpu_hour_usd": -2}, "price_per_gpu_hour_usd"),
])
def test_capacity_bad_input(api_client, body, field):
    if field is None:  # valid but impossible: an answer, not an error
        assert capacity(api_client, **body)["feasible"] is False
    else:
        assert field in capacity(api_client, status=400, **body)["fields"]


def walk(client, status=200, **body):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "tokens": list(range(100)), "tokenizer": "cl100k_base",
            "output_tokens": 10}
    return post(client, "request-walk", {**base, **body}, status)


def test_request_walk_timeline(api_client):
    d = walk(api_client)
    assert d["tokenizer"] == "cl100k_base (client)" and d["prompt_tokens"] == 100
    assert [s["kind"] for s in d["timeline"]] == ["prefill"] + ["decode"] * 10
    assert d["timeline"][0]["kv_bytes"] == 100 * 131_072
    assert d["timeline"][-1]["kv_bytes"] == 110 * 131_072
    assert d["ttft_seconds"] == d["timeline"][0]["end_seconds"]
    assert d["total_seconds"] == pytest.approx(d["ttft_seconds"] + 10 * d["itl_seconds"])
    assert d["kv_bytes_per_token"] == 131_072 and d["decode_bound"] == "memory"


def test_request_walk_tokenizes_text_approximately(api_client):
    d = walk(api_client, tokens=None, prompt="Explain the KV cache in one paragraph.")
    assert d["tokenizer"] == "approximate"
    assert "".join(d["token_pieces"]) == "Explain the KV cache in one paragraph."
    assert d["prompt_tokens"] == len(d["token_ids"]) == len(d["token_pieces"])


@pytest.mark.parametrize("body, field", [
    ({"output_tokens": 257}, "output_tokens"), ({"output_tokens": 0}, "output_tokens"),
    ({"tokens": None}, "prompt"), ({"tokens": [-1]}, "tokens.0"), ({"tokens": []}, "tokens"),
])
def test_request_walk_bad_input(api_client, body, field):
    assert field in walk(api_client, status=400, **body)["fields"]
