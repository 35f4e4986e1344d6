"""Fit, minimum TP, roofline step time and the throughput–latency curve."""

import numpy as np
import pytest

from apps.simulators.modeling import (
    ModelInputError,
    expected_distinct_experts,
    fit,
    load_gpus,
    load_models,
    min_tp,
    step_time,
    throughput_latency_curve,
    weight_bytes,
)

MODELS = load_models()
GPUS = load_gpus()




def test_llama_8b_bf16_weights_are_two_bytes_per_parameter():
    # 8,030,261,248 params · 2 B = 16,060,522,496 B
    assert weight_bytes(MODELS["llama-3.1-8b"], "bf16") == 16_060_522_496


def test_fp8_weights_keep_the_embedding_and_head_at_16_bit():
    m = MODELS["llama-3.1-8b"]
    # (8,030,261,248 − 2 · 525,336,576) · 1 B + 2 · 525,336,576 · 2 B
    assert weight_bytes(m, "fp8") == (8_030_261_248 - 1_050_673_152) + 1_050_673_152 * 2


def test_fit_llama_8b_on_h100_counts_max_sequences_by_hand():
    r = fit(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], context_tokens=8192, batch=1)
    # budget at vLLM's default 0.92: ceil(84,975,927,951 (79.14 GiB as CUDA reports it) · 0.92)
    # = ceil(78,177,853,714.92) = 78,177,853,715 B, not 80e9 · 0.92; KV per sequence 8,192 · 131,072 = 1,073,741,824 B
    assert r.budget_bytes == 78_177_853_715 and r.fits
    room = 78_177_853_715 - r.weights_bytes_per_gpu - r.activation_bytes_per_gpu - r.runtime_overhead_bytes
    assert r.max_concurrent_sequences == np.floor(room / 1_073_741_824)


def test_fit_is_vectorized_over_batch():
    r = fit(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], context_tokens=8192, batch=[1, 10_000])
    assert list(r.fits) == [True, False]


@pytest.mark.parametrize("slug,gpu,dtype,expected_tp", [
    ("llama-3.1-8b", "h100-sxm", "bf16", 1),
    # 141.1 GB of weights: TP 2 = 70.55e9 + activations 1.156e9 + 1.5e9 + 8,192 · 163,840 KV = 74.55e9 ≤ 78.18e9
    # (0.92 × 84.98e9)
    ("llama-3.1-70b", "h100-sxm", "bf16", 2),
    ("llama-3.1-70b", "h100-sxm", "fp8", 2),
    ("llama-3.1-405b", "h100-sxm", "fp8", 8),
    ("llama-3.1-405b", "h100-sxm", "bf16", None),  # 811 GB > 8 × 78.18 GB
    ("deepseek-v3", "h200", "fp8", 8),           # 672.9 GB ÷ 8 = 84.1 GB per GPU of a 138.1 GB budget (0.92 × 150.12)
    ("deepseek-v3", "h100-sxm", "fp8", None),    # 84.1 GB per GPU > the 78.18 GB budget (0.92 × CUDA total 84.98 GB)
    ("gpt-oss-120b", "h100-sxm", "mxfp4", 1),
])
def test_min_tp(slug, gpu, dtype, expected_tp):
    assert min_tp(MODELS[slug], GPUS[gpu], context_tokens=8192, weight_dtype=dtype).tp == expected_tp


def test_decode_step_for_llama_8b_by_hand():
    r = step_time(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], batch=1, context_tokens=0, new_tokens=1)
    # FLOPs = 2 · active 7,504,924,672 (total − embedding table) + attention 2·32·(128+128)·1·(32 layers · ctx_eff 1)
    assert r.flops_per_gpu == 15_009_849_344 + 524_288
    # bytes = weights 16,060,522,496 − table 1,050,673,152 + KV write 32·4,096 + activations 2·32·4096·2
    assert r.bytes_per_gpu == 15_009_849_344 + 131_072 + 524_288
    # Hopper priors (roofline.HOPPER_PRIORS): weights and activations at MBU 0.60, the KV write at 0.8607:
    # (15,009,849,344 + 524,288) / (3.35e12 · 0.60) = 7.467848 ms + 131,072 / (3.35e12 · 0.8607) = 0.045 µs
    assert r.memory_time_s == pytest.approx(7.467893e-3, rel=1e-6)
    assert r.bound == "memory"
    assert r.step_time_s_range[0] < r.step_time_s < r.step_time_s_range[1]
    assert "Memory-bound" in r.note and "FLOP/B" in r.derivation


def test_decode_crossover_batch_near_the_effective_ridge():
    r = step_time(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], batch=1, context_tokens=0)
    # Hopper priors: weights 15.01e9 B/(3.35e12·0.60) = 7.4676 ms ÷ per sequence (15.01e9 FLOP/(989.4e12·0.4334
    # decode MFU) = 35.005 µs − KV 131,072 B/(3.35e12·0.8607) = 0.045 µs − activations 524,288 B/(3.35e12·0.60)
    # = 0.261 µs) = 7.4676 ms / 34.699 µs ≈ 215.2 (where the step's total compute time reaches its memory time)
    assert r.crossover_batch == pytest.approx(215.2, abs=0.1) and r.crossover_reachable


def test_long_context_decode_never_turns_compute_bound():
    r = step_time(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], batch=1, context_tokens=32_000)
    assert not r.crossover_reachable and "never" in r.note


def test_prefill_is_compute_bound():
    r = step_time(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], batch=1, context_tokens=0, new_tokens=4096)
    assert r.bound == "compute" and r.arithmetic_intensity > r.ridge_point


def test_tensor_parallel_adds_two_all_reduces_per_layer():
    r = step_time(MODELS["llama-3.1-70b"], GPUS["h100-sxm"], batch=8, context_tokens=1000, tp=4)
    # ring: 2 · 80 layers · [2·3/4 · 8·8192·2 B / (450e9 · 0.7) + 2·3·1e-6 s]
    ring = 2 * 3 / 4 * 8 * 8192 * 2 / (450e9 * 0.7) + 6e-6
    assert r.communication_time_s == pytest.approx(2 * 80 * ring)


def test_moe_weight_traffic_uses_expected_distinct_experts():
    # 8 experts, top-2: one token touches 2, many tokens approach all 8
    assert expected_distinct_experts(8, 2, 1) == pytest.approx(2.0)
    assert expected_distinct_experts(8, 2, 1000) == pytest.approx(8.0)
    small = step_time(MODELS["mixtral-8x7b"], GPUS["h100-sxm"], batch=1, tp=2)
    large = step_time(MODELS["mixtral-8x7b"], GPUS["h100-sxm"], batch=256, tp=2)
    assert small.weight_bytes_per_gpu < large.weight_bytes_per_gpu


@pytest.mark.parametrize("field,kwargs", [
    ("batch", {"batch": 0}),
    ("batch", {"batch": 2_000_000}),
    ("context_tokens", {"context_tokens": 20_000_000}),
    ("context_tokens", {"context_tokens": -1}),
    ("new_tokens", {"new_tokens": 0}),
    ("weight_dtype", {"weight_dtype": "fp4"}),
    ("tp", {"tp": 3.5}),
])
def test_step_time_rejects_bad_input(field, kwargs):
    with pytest.raises(ModelInputError) as err:
        step_time(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], **kwargs)
    assert err.value.field == field


def test_curve_runs_until_memory_is_full_and_throughput_rises():
    c = throughput_latency_curve(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], prompt_tokens=1000, output_tokens=500)
    assert c.batch[0] == 1 and c.batch[-1] == c.max_batch
    mem = fit(MODELS["llama-3.1-8b"], GPUS["h100-sxm"], context_tokens=1500)
    assert c.max_batch == int(mem.max_concurrent_sequences)
    assert np.all(np.diff(c.tokens_per_s) > 0) and np.all(np.diff(c.tpot_s) >= 0)


def test_curve_when_nothing_fits():
    c = throughput_latency_curve(MODELS["llama-3.1-70b"], GPUS["rtx-4090"], prompt_tokens=1000, output_tokens=100)
    assert c.max_batch == 0 and c.batch.size == 0


def test_feasibility_of_70b_bf16_on_h100():
    from apps.simulators.modeling import feasibility

    m, g = MODELS["llama-3.1-70b"], GPUS["h100-sxm"]
    # TP 2 holds 70,553,706,496 weights + 1,156,186,112 activations + 1.5e9 runtime + 1025 · 163,840 KV
    # = 73,377,828,608 B per GPU: under ceil(84,975,927,951 · 0.9) = 76,478,335,156 (CUDA's total for an "80 GB"
    # H100), over ceil(84,975,927,951 · 0.85) = 72,229,538,759. (About the threshold between two utilizations, so
    # 0.9 is given: vLLM's default 0.92 leaves more room still.)
    at_90 = feasibility(m, g, context_tokens=1025, tp=2, gpu_memory_utilization=0.9)
    assert at_90.total_bytes_per_gpu == 73_377_828_608 and at_90.budget_bytes == 76_478_335_156
    assert at_90.fits and at_90.feasible and at_90.fix == "" and at_90.min_tensor_parallel == 2
    at_85 = feasibility(m, g, context_tokens=1025, tp=2, gpu_memory_utilization=0.85)
    assert at_85.budget_bytes == 72_229_538_759 and not at_85.fits and at_85.min_tensor_parallel == 4
    # TP 1: fp8 weights 68,452,360,192 · 1 + 2,101,346,304 · 2 = 72,655,052,800 + activations 1,775,501,312
    # + 1.5e9 + 1025 · 327,680 KV = 76,266,426,112 B ≤ ceil(0.92 · 84,975,927,951) = 78,177,853,715 (the default)
    # → the fix at TP 1 is fp8
    tp1 = feasibility(m, g, context_tokens=1025, tp=1)
    assert not tp1.fits and tp1.min_tensor_parallel == 2 and tp1.fix_weight_dtype == "fp8"


def test_each_part_of_a_layer_runs_at_its_own_roofline_one_after_the_other():
    """Mixtral 8x7B in FP8 with an FP8 cache on one H200, decode at batch 1,024 over 512 cached tokens, MFU 0.5 and
    MBU = KV-read efficiency = 0.8. The GEMMs outside the experts are compute-bound, attention reads the KV cache of
    1,024 sequences (memory-bound), and the experts see 1,024 · 2 / 8 = 256 tokens each (compute-bound). The kernels
    run one after the other, so the step is the sum of each part's own bound, and the routed experts take the
    no-overlap bound, their compute plus their weight streaming and the traffic of their elementwise kernels. One max
    over the summed work would hide the KV reads and the experts' memory traffic under the compute (22.11 ms less here:
    8.97 ms of KV reads less attention's 0.28 ms of compute, plus 11.74 ms of expert weights and 1.68 ms through the
    elementwise kernels)."""
    from dataclasses import replace

    from apps.simulators.engine.costs import roofline_step_cost
    from apps.simulators.modeling.roofline import PRIORS, Prior

    m, g = MODELS["mixtral-8x7b"], GPUS["h200"]
    flat = {k: Prior(v, v, v, "test") for k, v in (("mfu", 0.5), ("decode_mfu", 0.5), ("mbu", 0.8),
                                                 ("kv_read_efficiency", 0.8))}
    r = step_time(m, g, batch=1024, context_tokens=512, weight_dtype="fp8", kv_dtype="fp8",
                  priors=replace(PRIORS, **flat))
    # H200 datasheet: 1,978.9 TFLOP/s FP8 dense, 4.8 TB/s. config.json: 32 layers, hidden 4,096, 32 heads of 128,
    # 8 KV heads, vocabulary 32,000, 8 experts, top-2, intermediate 14,336.
    assert (g.peak_flops("fp8"), g.hbm_bandwidth_bytes_per_s) == (1978.9e12, 4.8e12)
    flops_per_s, bytes_per_s = 1978.9e12 * 0.5, 4.8e12 * 0.8
    # GEMMs outside the experts: attention projections 32 · (2 · 4,096² + 2 · 4,096 · 1,024) = 1,342,177,280, router
    # 32 · 4,096 · 8 = 1,048,576, norms 65 · 4,096 = 266,240: 2 · 1,343,492,096 · 1,024 FLOPs, plus the LM head
    # 2 · 32,000 · 4,096 · 1,024 → 3.0521 ms; their bytes (1,343,492,096 · 1 B, the head at 2 B, activations
    # 2 · 32 · 4,096 · 2 B · 1,024) take 0.56 ms.
    gemms = (2 * 1_343_492_096 * 1024 + 2 * 32_000 * 4096 * 1024) / flops_per_s
    gemm_bytes = (1_343_492_096 + 2 * 32_000 * 4096 + 2 * 32 * 4096 * 2 * 1024) / bytes_per_s
    # attention: 2 · 32 heads · (128 + 128) · 1,024 tokens · 32 layers · 513 (context + 1) FLOPs at the FP8 peak
    # (an FP8 cache), 0.278 ms, against the KV reads 1,024 · 32 · (512 + 1) · 2 · 8 · 128 · 1 B = 34.43 GB → 8.965 ms
    attention_flops = 2 * 32 * 256 * 1024 * 32 * 513 / flops_per_s
    kv_reads = 1024 * 32 * 513 * 2 * 8 * 128 / bytes_per_s
    # experts: 2 · 32 · 2 · (3 · 4,096 · 14,336) · 1,024 FLOPs → 23.336 ms against all 8 experts' weights
    # (8 · (1 − (6/8)^1024) = 8) 32 · 8 · 176,160,768 B → 11.744 ms
    experts = 2 * 32 * 2 * 176_160_768 * 1024 / flops_per_s
    expert_bytes = 32 * 8 * 176_160_768 / bytes_per_s
    # and their two elementwise kernels (vLLM's fused_experts): silu_and_mul reads the up/gate output 2 · 14,336 and
    # writes 14,336 per (token, expert) pair, moe_sum reads the two experts' 4,096-wide outputs and writes one, all at
    # 2 B: per pair 2 · (3 · 14,336 + 4,096 · 1.5) = 98,304 B, over 32 layers · 1,024 tokens · 2 experts → 1.678 ms
    elementwise = 32 * 1024 * 2 * 2 * (3 * 14_336 + 4096 * 1.5) / bytes_per_s
    assert elementwise == pytest.approx(1.6777e-3, rel=1e-4)
    assert (gemms, kv_reads, experts) == (pytest.approx(3.0521e-3, rel=1e-4), pytest.approx(8.9653e-3, rel=1e-4),
                                          pytest.approx(23.336e-3, rel=1e-4))
    assert r.compute_time_s == pytest.approx(gemms + attention_flops + experts, rel=1e-9)
    assert r.memory_time_s == pytest.approx(gemm_bytes + kv_reads + expert_bytes + elementwise, rel=1e-9)
    fixed = r.communication_time_s + r.overhead_time_s
    assert expert_bytes == pytest.approx(11.744e-3, rel=1e-4)
    assert r.step_time_s == pytest.approx(gemms + kv_reads + experts + expert_bytes + elementwise + fixed, rel=1e-9)
    assert r.step_time_s - (max(r.compute_time_s, r.memory_time_s) + fixed) == pytest.approx(
        kv_reads - attention_flops + expert_bytes + elementwise, rel=1e-9)
    assert r.step_time_s - (max(r.compute_time_s, r.memory_time_s) + fixed) == pytest.approx(22.11e-3, rel=1e-3)
    # the engine prices the same step the same way
    cost = roofline_step_cost(m, g, weight_dtype="fp8", kv_dtype="fp8", priors=replace(PRIORS, **flat))
    assert cost(np.ones(1024), np.full(1024, 512.0)) == pytest.approx(r.step_time_s, rel=1e-12)


def test_the_experts_elementwise_kernels_move_bytes_per_pair_that_grow_as_tp_narrows_each_expert():
    """vLLM's fused_experts runs silu_and_mul (reads the up/gate output, 2 · w wide, writes w) and moe_sum (reads the k
    experts' h-wide outputs, writes one) around its two grouped GEMMs: per (token, expert) pair 2 B · (3 · w + h · (1 +
    1/k)). DeepSeek-V3 (config.json: 58 MoE layers after first_k_dense_replace 3 of 61, top-8, moe_intermediate_size
    2,048, hidden 7,168): at TP 8 each GPU holds 256 columns of every expert and sees every token's 8 pairs,
    2 · (768 + 8,064) = 17,664 B per pair, 58 · 8 · 17,664 = 8,196,096 B per token; with EP 8 whole experts
    (w = 2,048, 2 · (6,144 + 8,064) = 28,416 B per pair) and one eighth of the pairs: 58 · 8 · 28,416 / 8 =
    1,648,128 B. A dense model has none."""
    from apps.simulators.modeling.parallel import Parallelism
    from apps.simulators.modeling.roofline import expert_elementwise_bytes

    m = MODELS["deepseek-v3"]
    assert (m.num_moe_layers, m.experts_per_token, m.moe_intermediate_size, m.hidden_size) == (58, 8, 2048, 7168)
    assert expert_elementwise_bytes(m, Parallelism(tp=8), 2) == pytest.approx(8_196_096)
    assert expert_elementwise_bytes(m, Parallelism(tp=8, ep=8), 2) == pytest.approx(1_648_128)
    assert expert_elementwise_bytes(MODELS["llama-3.1-8b"], Parallelism(tp=8), 2) == 0.0
    # in the step: a TP-8 prefill of 8,192 tokens moves 8,192 · 8,196,096 B more through the experts' memory time
    g = GPUS["h200"]
    with_experts = step_time(m, g, batch=1, context_tokens=0, new_tokens=8192, tp=8, weight_dtype="fp8")
    assert float(with_experts.bytes_per_gpu) - float(with_experts.weight_bytes_per_gpu) - float(
        with_experts.kv_bytes_per_gpu) == pytest.approx(8192 * (8_196_096 + 2 * 61 * 7168 * 2), rel=1e-9)
