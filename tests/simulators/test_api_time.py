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
    # H100 is Hopper: weight-read MBU 0.60, KV-read efficiency 0.8607, decode MFU 0.4334 (roofline.HOPPER_PRIORS).
    # weights 15,009,849,344 B + activations 2·32·4096·2 = 524,288 B over 3.35e12 · 0.60 = 2.01e12 B/s
    # = 7.46785 ms; KV 268,566,528 B over 3.35e12 · 0.8607 = 2.883345e12 B/s = 0.09314 ms; sum 7.56099 ms.
    assert d["memory_seconds"] == pytest.approx(15_010_373_632 / 2.01e12 + 268_566_528 / 2.883345e12)
    assert d["memory_seconds"] == pytest.approx(7.56099e-3, rel=1e-5)
    assert d["compute_seconds"] == pytest.approx(d["flops"] / (989.4e12 * 0.4334))
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


# Llama-3.1-70B, hand-derived (fit model: apps/simulators/modeling/memory.py):
#   params: embedding 128,256 · 8,192 = 1,050,673,152, × 2 (untied LM head) = 2,101,346,304;
#   per layer attention 2·8192·8192 + 2·8192·1024 = 150,994,944, MLP 3·8192·28672 = 704,643,072, norms 16,384
#   → 855,654,400 × 80 = 68,452,352,000; + final norm 8,192 → 70,553,706,496 params (the "70.6e9")
#   BF16 weights 2 B each = 141,107,412,992 B.
#   Budget per GPU = ceil(memory_bytes × gpu_memory_utilization), memory_bytes being the total CUDA reports for an
#   "80 GB" H100 (79.14 GiB = 84,975,927,951 B; vLLM's request_memory), at vLLM's default 0.92:
#   ceil(84,975,927,951 × 0.92) = ceil(78,177,853,714.92) = 78,177,853,715 B.
#   TP 1: weights alone 141.1e9 > 78.18e9.                                 → does not fit
#   TP 2: weights 70,553,706,496 + activation peak 8192 · (4·8192 + 80·128/2 + 2·28672/2) · 2 + 256 · 128256/2 · 4
#         = 1,156,186,112 + runtime 1.5e9 + KV (1024 cached + 1) · 2·80·(8/2)·128·2 = 1025 · 163,840 = 167,936,000
#         = 73,377,828,608 B ≤ 78.18e9                                    → min TP 2 at the default 0.92
#   At gpu_memory_utilization 0.85 the budget is ceil(84,975,927,951 × 0.85) = 72,229,538,759 < 73.38e9 → min TP 4
#   Smaller dtype at TP 1: fp8 = (70,553,706,496 − 2,101,346,304) · 1 B + 2,101,346,304 · 2 B (embedding and head
#   stay 16-bit) = 72,655,052,800 B + activations 8192 · (4·8192 + 80·128 + 2·28672) · 2 + 256 · 128256 · 4
#   = 1,775,501,312 + 1.5e9 + 1025 · 327,680 KV = 76,266,426,112 ≤ 78,177,853,715 → fp8 (by 1.91 GB).
LLAMA_70B_BF16_TP2_BYTES = 70_553_706_496 + 1_156_186_112 + 1_500_000_000 + 1025 * 163_840


def test_step_time_of_70b_bf16_on_one_h100_is_infeasible(api_client):
    d = step(api_client, model="llama-3.1-70b", context_tokens=1024)
    assert d["fits"] is False and d["feasible"] is False
    assert d["min_tensor_parallel"] == 2 and d["fix_weight_dtype"] == "fp8"
    assert d["reason"] == ("Does not fit: the weights alone (141,107,412,992 B per GPU at TP 1, bf16) exceed the budget "
                           "84,975,927,951 B × 0.92 = 78,177,853,715 B of each NVIDIA H100 SXM5 80GB.")
    assert "tensor_parallel 2" in d["fix"] and "weight_dtype fp8 at TP 1" in d["fix"]
    assert d["note"].startswith("Does not fit") and d["weight_bytes"] == pytest.approx(141_107_412_992 - 2_101_346_304)
    tp2 = step(api_client, model="llama-3.1-70b", context_tokens=1024, tensor_parallel=2)
    assert LLAMA_70B_BF16_TP2_BYTES == 73_377_828_608
    assert tp2["fits"] is True and tp2["feasible"] is True and tp2["fix"] == "" and tp2["fix_weight_dtype"] is None
    assert tp2["reason"].startswith(f"Fits: {LLAMA_70B_BF16_TP2_BYTES:,} B of the 78,177,853,715 B budget")


def test_step_time_of_70b_bf16_needs_tp_4_at_85_percent_utilization(api_client):
    d = step(api_client, model="llama-3.1-70b", context_tokens=1024, gpu_memory_utilization=0.85)
    assert d["fits"] is False and d["min_tensor_parallel"] == 4  # 73.38e9 > 72,229,538,759
    tp2 = step(api_client, model="llama-3.1-70b", context_tokens=1024, tensor_parallel=2, gpu_memory_utilization=0.85)
    assert tp2["fits"] is False and f"{LLAMA_70B_BF16_TP2_BYTES:,} B per GPU at TP 2" in tp2["reason"]


def test_step_time_with_a_tp_vllm_refuses_is_infeasible_though_it_fits(api_client):
    d = step(api_client, tensor_parallel=3)  # 32 heads, 8 KV heads: 3 divides neither
    assert d["fits"] is True and d["feasible"] is False and d["min_tensor_parallel"] == 1
    assert "does not divide" in d["reason"] and "tensor_parallel 1" in d["fix"]


def test_step_time_that_fits_says_so(api_client):
    d = step(api_client)
    assert (d["fits"], d["feasible"], d["min_tensor_parallel"], d["fix_weight_dtype"], d["fix"]) == (
        True, True, 1, None, "")


def curve(client, status=200, **body):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "prompt_tokens": 2048, "output_tokens": 256}
    return post(client, "throughput-latency", {**base, **body}, status)


def test_throughput_grows_with_batch_until_memory_is_full(api_client):
    d = curve(api_client)
    batches = [p["batch_size"] for p in d["points"]]
    assert batches[:4] == [1, 2, 4, 8] and batches[-1] == d["max_batch"]
    # KV budget ÷ KV per sequence at 2048 + 256 tokens; the budget at vLLM's default 0.92 is 78,177,853,715 B
    kv_room = 78_177_853_715 - 8_030_261_248 * 2 - (8192 * 51200 * 2 + 256 * 128256 * 4) - 1.5e9
    assert d["max_batch"] == int(kv_room // (131_072 * 2304))
    speeds = [p["tokens_per_s"] for p in d["points"]]
    assert speeds == sorted(speeds)
    for p in d["points"]:
        assert p["tokens_per_s"] == pytest.approx(p["batch_size"] / p["tpot_seconds"])
        assert p["tokens_per_s_range"][0] <= p["tokens_per_s"] <= p["tokens_per_s_range"][1]


def test_a_model_that_does_not_fit_gives_an_empty_curve(api_client):
    d = curve(api_client, model="llama-3.1-405b")
    assert d["points"] == [] and d["max_batch"] == 0 and "fits" in d["note"]
    # 405.9e9 params × 2 B ≈ 811 GB: even 8 × 78.18 GB = 625 GB is too little, and int4 on one GPU (≈ 204 GB) too
    assert d["fits"] is False and d["feasible"] is False
    assert d["min_tensor_parallel"] is None and d["fix_weight_dtype"] is None and "nothing up to TP 8" in d["fix"]


def test_curve_of_70b_on_one_h100_names_the_fix(api_client):
    d = curve(api_client, model="llama-3.1-70b")
    assert d["points"] == [] and d["fits"] is False and d["min_tensor_parallel"] == 2
    assert curve(api_client, model="llama-3.1-70b", tensor_parallel=2)["fits"] is True


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
    # memory is not the problem: it fits on one GPU, and no TP or dtype fix is offered for an SLO
    assert d["fits"] is True and d["min_tensor_parallel"] == 1 and d["fix"] == ""
    assert d["reason"].startswith("Fits in memory, but no plan meets the SLOs")


def test_capacity_that_fits_says_so(api_client):
    d = capacity(api_client)
    assert d["feasible"] is True and d["fits"] is True and d["fix"] == "" and d["reason"].startswith("Fits:")


def test_capacity_of_70b_at_tp_1_is_infeasible_with_its_fix(api_client):
    d = capacity(api_client, model="llama-3.1-70b", tensor_parallel=1)
    # 1 sequence of 1000 + 200 tokens; the weights alone (141.1 GB) exceed the 78.18 GB budget; fp8 at TP 1 fits
    # (72,655,052,800 + 1,775,501,312 + 1.5e9 + 1200 · 327,680 = 76,323,766,112 ≤ 78,177,853,715)
    assert d["feasible"] is False and d["fits"] is False and d["limiting_factor"] == "memory"
    assert d["min_tensor_parallel"] == 2 and d["fix_weight_dtype"] == "fp8"
    auto = capacity(api_client, model="llama-3.1-70b")
    assert auto["fits"] is True and auto["tp"] >= 2


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
    # The prefill emits output token 1; 10 − 1 = 9 decode steps emit tokens 2 … 10 (as the engine does).
    assert [s["kind"] for s in d["timeline"]] == ["prefill"] + ["decode"] * 9 and d["decode_steps"] == 9
    assert [s["index"] for s in d["timeline"]] == list(range(1, 11))
    assert d["timeline"][0]["kv_bytes"] == 100 * 131_072
    # the last decode step feeds token 9 with 100 + 8 cached and writes its KV: 109 tokens; token 10 is never fed back
    assert d["timeline"][-1]["kv_bytes"] == 109 * 131_072
    assert d["ttft_seconds"] == d["timeline"][0]["end_seconds"]
    assert d["total_seconds"] == pytest.approx(d["ttft_seconds"] + 9 * d["itl_seconds"])
    assert d["total_seconds"] == d["timeline"][-1]["end_seconds"]
    assert d["kv_bytes_per_token"] == 131_072 and d["decode_bound"] == "memory"
    assert d["fits"] is True and d["feasible"] is True and d["fix"] == "" and d["min_tensor_parallel"] == 1


def test_request_walk_of_one_output_token_is_the_prefill_alone(api_client):
    d = walk(api_client, output_tokens=1)
    assert [s["kind"] for s in d["timeline"]] == ["prefill"] and d["decode_steps"] == 0
    assert d["total_seconds"] == d["ttft_seconds"] and d["itl_seconds"] == 0


def test_request_walk_takes_tensor_parallel(api_client):
    d = walk(api_client, tensor_parallel=8)
    # 8 KV heads over 8 ranks: one head per GPU, 2 · 32 · 1 · 128 · 2 B = 16,384 B per token per GPU
    assert d["kv_bytes_per_token"] == 16_384 and d["timeline"][0]["kv_bytes"] == 100 * 16_384
    assert d["decode_weight_bytes_per_step"] == pytest.approx(LLAMA_8B_STEP_WEIGHTS / 8)


def test_request_walk_of_70b_on_one_h100_is_infeasible(api_client):
    d = walk(api_client, model="llama-3.1-70b")
    # 141.1 GB of BF16 weights on one 80 GB GPU (see test_step_time_of_70b_bf16_on_one_h100_is_infeasible)
    assert d["fits"] is False and d["feasible"] is False and d["min_tensor_parallel"] == 2
    assert d["reason"].startswith("Does not fit: the weights alone") and "tensor_parallel 2" in d["fix"]
    assert walk(api_client, model="llama-3.1-70b", tensor_parallel=2)["feasible"] is True


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


def test_request_walk_meters_are_achieved_over_peak_for_each_step(api_client):
    """The Lab's request-walk meters, derived by hand for Llama-3.1-8B BF16 on one H100 SXM (989.4 TFLOP/s dense BF16,
    3.35 TB/s HBM), a 100-token prompt and 10 output tokens."""
    d = walk(api_client)
    assert d["peak_flops_per_s"] == pytest.approx(989.4e12) and d["peak_bandwidth_bytes_per_s"] == pytest.approx(3.35e12)
    prefill, first_decode = d["timeline"][0], d["timeline"][1]
    # Prefill: 2 FLOPs per parameter per token over the parameters a step multiplies: the 32 layers (7,504,924,672
    # parameters a step reads, less the 128,256 × 4,096 = 525,336,576 of the LM head) for all 100 tokens, and the
    # LM head for the last token only (the one sampled): 2 · 6,979,588,096 · 100 + 2 · 525,336,576 = 1.39697e12 FLOP,
    # plus causal attention (≈ 2 · 100² · 4,096 · 32 = 2.6e9, under 0.2 %), done in TTFT seconds, against 989.4e12.
    flops = 2 * 6_979_588_096 * 100 + 2 * 525_336_576
    assert prefill["compute_utilization"] == pytest.approx(flops / d["ttft_seconds"] / 989.4e12, rel=0.005)
    # The first decode step feeds output token 1 with 100 tokens cached: it reads the weights (15,009,849,344 B), the
    # activations (2 · 32 · 4096 · 2 = 524,288 B) and the cache (100 · 131,072 B) and writes one token's KV
    # (131,072 B): 15,023,611,904 B in (end − start) seconds, against 3.35e12 B/s.
    seconds = first_decode["end_seconds"] - first_decode["start_seconds"]
    assert first_decode["bandwidth_utilization"] == pytest.approx(15_023_611_904 / seconds / 3.35e12, rel=1e-6)
    # Memory-bound decode runs below the H100's weight-read efficiency (MBU 0.60) and its compute meter barely moves;
    # the compute-heavy prefill fills the compute meter far more than any decode step.
    assert 0.3 < first_decode["bandwidth_utilization"] < 0.60 and first_decode["compute_utilization"] < 0.01
    assert all(0 <= s["compute_utilization"] <= 1 and 0 <= s["bandwidth_utilization"] <= 1 for s in d["timeline"])
    assert prefill["compute_utilization"] > 20 * max(s["compute_utilization"] for s in d["timeline"][1:])


def test_a_mixture_of_experts_answer_says_its_priors_are_fitted_on_dense_models(api_client):
    """The priors are fitted on dense models; measured DeepSeek-R1 and gpt-oss serving ran 2-4x slower than they
    predict (benchmarks/README.md, calibration), so each closed-form answer for an MoE model carries the warning."""
    dense = step(api_client, phase="decode")
    assert not any("mixture-of-experts" in w for w in dense["warnings"])
    moe = step(api_client, model="gpt-oss-120b", phase="decode")
    (warning,) = [w for w in moe["warnings"] if "mixture-of-experts" in w]
    assert "fitted on dense models" in warning and "gpt-oss-120b" in warning and "optimistic" in warning
    curve = post(api_client, "throughput-latency", {"model": "gpt-oss-120b", "gpu": "h100-sxm", "prompt_tokens": 1000,
                                                    "output_tokens": 200}, 200)
    plan = capacity(api_client, model="gpt-oss-120b")
    assert warning in curve["warnings"] and warning in plan["warnings"]


def test_step_time_names_the_parts_of_a_layer_and_they_add_up_to_the_step(api_client):
    # Mixtral 8x7B, decode at batch 1,024 over 512 tokens on one H200 in FP8: the GEMMs and attention, each at the
    # longer of its compute and memory time, and the routed experts at their sum, the no-overlap bound
    # (test_modeling_memory_roofline.py derives the same step by hand at fixed priors); a dense model has no experts
    # part.
    moe = step(api_client, model="mixtral-8x7b", gpu="h200", phase="decode", batch_size=1024, context_tokens=512,
               weight_dtype="fp8", kv_dtype="fp8")
    assert [p["part"] for p in moe["parts"]] == ["gemms", "attention", "experts"]
    assert [p["overlapped"] for p in moe["parts"]] == [True, True, False]
    for p in moe["parts"][:2]:
        assert p["seconds"] == max(p["compute_seconds"], p["memory_seconds"])
    experts = moe["parts"][2]
    assert experts["seconds"] == pytest.approx(experts["compute_seconds"] + experts["memory_seconds"], rel=1e-12)
    assert "(t_compute + t_memory) of the routed experts" in moe["derivation"]
    assert sum(p["compute_seconds"] for p in moe["parts"]) == pytest.approx(moe["compute_seconds"], rel=1e-12)
    assert sum(p["memory_seconds"] for p in moe["parts"]) == pytest.approx(moe["memory_seconds"], rel=1e-12)
    assert sum(p["seconds"] for p in moe["parts"]) + moe["communication_seconds"] + moe["overhead_seconds"] == (
        pytest.approx(moe["step_seconds"], rel=1e-12))
    # attention reads 34.4 GB of FP8 KV (1,024 · 513 · 32 layers · 2,048 B) and is memory-bound; the experts'
    # 256 tokens each make them compute-bound
    attention, experts = moe["parts"][1], moe["parts"][2]
    assert attention["memory_seconds"] > attention["compute_seconds"]
    assert experts["compute_seconds"] > experts["memory_seconds"]
    dense = step(api_client, phase="decode")
    assert [p["part"] for p in dense["parts"]] == ["gemms", "attention"]
    # the experts' fixed kernel time is its own figure inside the overhead: Mixtral's 32 MoE layers × 27.8 µs =
    # 0.8896 ms; the engine loop's 150 µs and 4 µs per sequence make the rest; a dense model has none
    assert moe["expert_kernels_seconds"] == pytest.approx(32 * 27.8e-6, rel=1e-12)
    assert moe["overhead_seconds"] == pytest.approx(150e-6 + 4e-6 * 1024 + 32 * 27.8e-6, rel=1e-9)
    assert dense["expert_kernels_seconds"] == 0
