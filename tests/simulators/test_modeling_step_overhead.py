"""The fixed cost per engine step (step_overhead.py): light-load decode by hand, and eager mode vs CUDA graphs."""

import numpy as np
import pytest

from apps.simulators.engine.costs import roofline_step_cost
from apps.simulators.modeling import load_gpus, load_models, step_time, throughput_latency_curve
from apps.simulators.modeling.step_overhead import EAGER_LAUNCH_S_PER_LAYER

MODELS = load_models()
GPUS = load_gpus()
M, G = MODELS["llama-3.1-8b"], GPUS["h100-sxm"]

# Llama-3.1-8B BF16: 8,030,261,248 params · 2 B = 16,060,522,496 B (16.06 GB); the token embedding 128,256 · 4,096 · 2 B
# = 1,050,673,152 B is a lookup, not streamed (the untied LM head is), so a decode step reads 15,009,849,344 B of
# weights, + activations 2 · L · h · 2 B · 1 token = 2 · 32 · 4,096 · 2 = 524,288 B, + the new token's KV
# 2 (K, V) · 8 KV heads · 128 · 2 B · 32 layers = 131,072 B (no cached context).
STREAMED = 16_060_522_496 - 1_050_673_152 + 524_288
KV = 131_072
BW = 3.35e12  # H100 SXM HBM3


def test_light_load_tpot_of_llama_8b_bf16_on_h100_by_hand():
    r = step_time(M, G, batch=1, context_tokens=0)
    # Hopper priors (expected / optimistic / pessimistic): weight MBU 0.60 / 0.681 / 0.471, KV-read 0.8607 / 0.977 /
    # 0.675; fixed cost with CUDA graphs: engine-loop CPU 150 / 50 / 500 µs per step + 4 / 1 / 10 µs per sequence.
    expected = STREAMED / (BW * 0.60) + KV / (BW * 0.8607) + 150e-6 + 4e-6
    fast = STREAMED / (BW * 0.681) + KV / (BW * 0.977) + 50e-6 + 1e-6
    slow = STREAMED / (BW * 0.471) + KV / (BW * 0.675) + 500e-6 + 10e-6
    # ≈ 7.47 ms + 0.15 ms = 7.62 ms [6.63, 10.02]: memory-bound (16 GFLOP at 43.34 % of 989.4 TFLOP/s is ~0.04 ms)
    assert r.bound == "memory"
    assert r.step_time_s == pytest.approx(expected, rel=1e-9)
    assert r.step_time_s_range == pytest.approx([fast, slow], rel=1e-9)
    assert r.overhead_time_s == pytest.approx(154e-6)
    assert 7.6e-3 < expected < 7.7e-3


def test_eager_mode_costs_the_documented_launches_per_layer():
    graphs = step_time(M, G, batch=1, context_tokens=0)
    eager = step_time(M, G, batch=1, context_tokens=0, cuda_graphs=False)
    # 32 layers × 46.9 µs (vLLM PR #1440: (1.2 s − 1.05 s)/100 tokens/32 layers) = 1.5008 ms expected;
    # optimistic 32 × 27.5 µs = 0.88 ms (SGLang #1401 FlashInfer), pessimistic 32 × 69.4 µs = 2.2208 ms (Triton)
    assert (EAGER_LAUNCH_S_PER_LAYER.low, EAGER_LAUNCH_S_PER_LAYER.expected, EAGER_LAUNCH_S_PER_LAYER.high) == (
        27.5e-6, 46.9e-6, 69.4e-6)
    assert eager.step_time_s - graphs.step_time_s == pytest.approx(1.5008e-3, rel=1e-9)
    assert eager.overhead_time_s == pytest.approx(154e-6 + 1.5008e-3, rel=1e-9)
    assert eager.step_time_s_range[0] - graphs.step_time_s_range[0] == pytest.approx(0.88e-3, rel=1e-9)
    assert eager.step_time_s_range[1] - graphs.step_time_s_range[1] == pytest.approx(2.2208e-3, rel=1e-9)
    assert "enforce_eager" in eager.derivation and "1.50 ms" in eager.derivation


def test_the_knob_reaches_the_curve_and_the_engine():
    c1 = throughput_latency_curve(M, G, prompt_tokens=1000, output_tokens=1000)
    c0 = throughput_latency_curve(M, G, prompt_tokens=1000, output_tokens=1000, cuda_graphs=False)
    assert np.allclose(c0.decode_step_s - c1.decode_step_s, 1.5008e-3, rtol=1e-9)
    # the engine's step cost: the same 1.5008 ms on one decode of a sequence with no context
    n, ctx = np.array([1.0]), np.array([0.0])
    g1 = roofline_step_cost(M, G)(n, ctx)
    g0 = roofline_step_cost(M, G, cuda_graphs=False)(n, ctx)
    assert g0 - g1 == pytest.approx(1.5008e-3, rel=1e-9)


def test_a_moe_step_pays_the_routed_experts_fixed_kernel_time_per_moe_layer():
    """The fixed GPU time of a fused_moe call beyond its expert bytes, from three kernel benchmarks (step_overhead.py),
    derived here from their printed times: vLLM PR #44830 (H100, Qwen3-Next-80B FP8 TP 4, batch 1) 29.45 µs less
    10 experts × (2,048 · 2 · 128 + 128 · 2,048) B = 7,864,320 B at 3.35 TB/s; SGLang PR #11730 (H200, Qwen3-235B FP8
    TP 8) 31.70 µs less 8 × (4,096 · 2 · 192 + 192 · 4,096) B = 18,874,368 B at 4.8 TB/s; vLLM PR #24700 (Qwen3-30B-A3B
    FP8 TP 1) the least-squares intercept of its batch 1-64 times against the expected distinct experts' bytes."""
    from apps.simulators.modeling.step_overhead import MOE_LAYER_FIXED_S

    h100 = 29.45e-6 - 7_864_320 / 3.35e12
    h200 = 31.70e-6 - 18_874_368 / 4.8e12
    assert (h100, h200) == (pytest.approx(27.10e-6, abs=0.01e-6), pytest.approx(27.77e-6, abs=0.01e-6))
    per_expert = 2048 * 2 * 768 + 768 * 2048  # Qwen3-30B-A3B: hidden 2,048, expert intermediate 768, FP8
    batches = np.array([1, 2, 4, 8, 16, 32, 64])
    times = np.array([40.44, 56.15, 78.10, 118.64, 164.64, 210.07, 237.26])  # µs, the PR's configs
    expert_bytes = 128 * (1 - (120 / 128) ** batches) * per_expert  # 128 experts, 8 per token, uniform routing
    intercept, _ = np.linalg.lstsq(np.vstack([np.ones(7), expert_bytes]).T, times, rcond=None)[0]
    assert intercept == pytest.approx(30.2, abs=0.05)
    assert (MOE_LAYER_FIXED_S.low, MOE_LAYER_FIXED_S.expected, MOE_LAYER_FIXED_S.high) == (27.1e-6, 27.8e-6, 30.2e-6)

    # gpt-oss-120b (36 layers, every one MoE) on 8 × H100 at batch 1: the fixed cost is the engine loop's 150 µs + 4 µs
    # for the one sequence + 36 × 27.8 µs = 1.0008 ms of expert kernels = 1.1548 ms; a dense model pays none of it.
    gpt_oss = MODELS["gpt-oss-120b"]
    r = step_time(gpt_oss, G, batch=1, context_tokens=1024, tp=8, weight_dtype="mxfp4")
    assert r.overhead_time_s == pytest.approx(150e-6 + 4e-6 + 36 * 27.8e-6, rel=1e-9)
    assert step_time(M, G, batch=1, context_tokens=1024).overhead_time_s == pytest.approx(154e-6, rel=1e-9)
    assert "27.8 µs × 36 MoE layers = 1.00 ms" in r.derivation
    # the engine prices the same step the same way
    cost = roofline_step_cost(gpt_oss, G, tp=8, weight_dtype="mxfp4")
    assert cost(np.ones(1), np.full(1, 1024.0)) == pytest.approx(float(r.step_time_s), rel=1e-9)
