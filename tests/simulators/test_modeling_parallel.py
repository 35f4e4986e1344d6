"""Expert, data and pipeline parallelism in the modeling package, hand-derived (DeepSeek-V3 on 8 and 32 GPUs)."""

import numpy as np
import pytest

from apps.simulators.engine.costs import roofline_step_cost
from apps.simulators.modeling import (
    ModelInputError,
    feasibility,
    fit,
    load_gpus,
    load_models,
    parallelism,
    step_time,
)
from apps.simulators.modeling.moe import ep_rank_imbalance

MODELS, GPUS = load_models(), load_gpus()
DSV3 = MODELS["deepseek-v3"]

# DeepSeek-V3 (config.json): h 7,168, 61 layers of which 58 MoE, 256 routed experts of F_moe 2,048, top-8, vocab 129,280.
# One expert: 3 · 7,168 · 2,048 = 44,040,192 params; routed: 58 · 256 · 44,040,192 = 653,908,770,816.
# FP8 weights: 671,026,404,352 params at 1 B + embedding and LM head (2 · 129,280 · 7,168 = 1,853,358,080) at a second
# byte = 672,879,762,432 B; non-expert = 672,879,762,432 − 653,908,770,816 = 18,970,991,616 B.
NON_EXPERT, EXPERTS = 18_970_991_616, 653_908_770_816
# KV (MLA, FP8): 61 · (512 + 64) · 1 B = 35,136 B per token, not split by TP; 8,192 tokens = 287,834,112 B.
KV_8K = 8192 * 35_136
# Activation peak (memory.activation_peak_bytes): 8,192 tokens · (4·7,168 + (128 + 2·128)·192/TP + 2·8·2,048/TP) · 2 B
# + 256 · 129,280 · 4 B / TP: TP 1 → 8,192 · 135,168 · 2 + 132,382,720 = 2,346,975,232; TP 8 → 704,413,696.
ACT_TP1, ACT_TP8 = 2_346_975_232, 704_413_696
# ceil(0.92 · 150,119,844,413) at vLLM's default gpu_memory_utilization; 139.81 GiB as CUDA reports an H200
H200_BUDGET = 138_110_256_860


def fp8(**kw):
    return dict(weight_dtype="fp8", kv_dtype="fp8", **kw)


def test_deepseek_v3_expert_parallel_memory_on_8_h200():
    ep = fit(DSV3, GPUS["h200"], context_tokens=8192, tp=1, dp=8, ep=8, **fp8())
    # DP 8 × EP 8: attention, shared expert, embedding and head replicated on every rank (TP 1), 256 / 8 = 32 whole
    # experts per GPU: 18,970,991,616 + 653,908,770,816 / 8 = 100,709,587,968 B per GPU
    assert ep.weights_bytes_per_gpu == NON_EXPERT + EXPERTS / 8 == 100_709_587_968
    assert ep.budget_bytes == H200_BUDGET and ep.fits
    # KV room per rank (138,110,256,860 − 100,709,587,968 − 2,346,975,232 − 1.5e9) / 287,834,112
    # = 33,553,693,660 / 287,834,112 = 116.6 → 116 sequences of 8k per rank, 928 in the deployment
    assert ep.max_concurrent_sequences == 116 == (H200_BUDGET - 100_709_587_968 - ACT_TP1 - 1.5e9) // KV_8K
    tp = fit(DSV3, GPUS["h200"], context_tokens=8192, tp=8, **fp8())
    # TP 8: 672,879,762,432 / 8 = 84,109,970,304 B per GPU, but MLA's latent KV is replicated on the 8 ranks:
    # (138,110,256,860 − 84,109,970,304 − 704,413,696 − 1.5e9) / 287,834,112 = 51,795,872,860 / 287,834,112 = 179.95
    # → 179 sequences for the whole node (928 > 5 × 179 = 895)
    assert tp.weights_bytes_per_gpu == 84_109_970_304 and tp.max_concurrent_sequences == 179
    assert 8 * ep.max_concurrent_sequences > 5 * tp.max_concurrent_sequences
    assert "EP 8: 32 whole experts per GPU" in ep.derivation


def test_deepseek_v3_on_8_h100_is_a_headroom_problem():
    f = feasibility(DSV3, GPUS["h100-sxm"], context_tokens=8192, tp=8, **fp8())
    # 84,109,970,304 B per GPU < 84,975,927,951 B that CUDA reports (79.14 GiB): 865,957,647 B left, but the budget
    # ceil(0.92 · 84,975,927,951) = ceil(78,177,853,714.92) = 78,177,853,715 is below the weights
    assert not f.fits and f.budget_bytes == 78_177_853_715 and f.weights_bytes_per_gpu == 84_109_970_304
    assert "with 865,957,647 B left: the problem is headroom" in f.reason
    # attention DP 8 with EP 8 is worse: every rank replicates 18.97e9 B of non-expert weights → 100.7e9 B per GPU
    dp = feasibility(DSV3, GPUS["h100-sxm"], context_tokens=8192, tp=1, dp=8, ep=8, **fp8())
    assert not dp.fits and dp.weights_bytes_per_gpu == 100_709_587_968 and "headroom" not in dp.reason


def test_two_node_and_32_gpu_expert_parallel_deployments():
    # 2 nodes of 8 × H100: TP 2 × DP 8, EP 16: 18,970,991,616 / 2 + 653,908,770,816 / 16 = 50,354,793,984 B per GPU
    two = fit(DSV3, GPUS["h100-sxm"], context_tokens=8192, tp=2, dp=8, ep=16, **fp8())
    assert two.parallel.gpus == 16 and two.weights_bytes_per_gpu == 50_354_793_984 and two.fits
    # 32 × H200 (4 nodes): DP 32, EP 32: 18,970,991,616 + 653,908,770,816 / 32 = 39,405,640,704 B per GPU
    wide = fit(DSV3, GPUS["h200"], context_tokens=8192, tp=1, dp=32, ep=32, **fp8())
    assert wide.parallel.gpus == 32 and wide.weights_bytes_per_gpu == 39_405_640_704
    # (138,110,256,860 − 39,405,640,704 − 2,346,975,232 − 1.5e9) / 287,834,112 = 94,857,640,924 / 287,834,112 = 329.6
    assert wide.max_concurrent_sequences == (H200_BUDGET - 39_405_640_704 - ACT_TP1 - 1.5e9) // KV_8K == 329


def test_busiest_expert_parallel_rank_by_hand():
    # uniform routing: 1 + √(2 ln EP · (1 − k/N) · EP/(T·k)); 8 ranks × 64 tokens = 512 tokens over EP 8:
    # 1 + √(2 · 2.0794 · 0.96875 · 8/4,096) = 1 + √0.0078690 = 1.08871
    assert ep_rank_imbalance(256, 8, 512, 8) == pytest.approx(1.08871, abs=1e-5)
    # 2,048 tokens over EP 32: 1 + √(2 · 3.4657 · 0.96875 · 32/16,384) = 1.11452
    assert ep_rank_imbalance(256, 8, 2048, 32) == pytest.approx(1.11452, abs=1e-5)
    # skewed popularity puts the hot experts on rank 0 and more tokens do not cure it
    skewed = ep_rank_imbalance(256, 8, [512, 100_000], 8, zipf_exponent=1.0)
    assert skewed[0] > skewed[1] > 1.5
    assert ep_rank_imbalance(256, 8, 512, 1) == 1.0


ALPHA, EFF = 1e-6, 0.7  # per-hop latency and expected collective efficiency (roofline defaults)


def test_all_to_all_of_deepseek_v3_decode_on_8_gpus_by_hand():
    r = step_time(DSV3, GPUS["h200"], batch=64, context_tokens=4096, tp=1, dp=8, ep=8, **fp8())
    # each GPU dispatches its 64 tokens' 8 expert copies of h = 7,168 BF16 values: 64 · 8 · 7,168 · 2 = 7,340,032 B;
    # all 8 GPUs on NVLink (450e9 B/s one way): 7,340,032 · 7/8 / (450e9 · 0.7) + 7 · 1 µs = 27.389 µs per
    # all-to-all; dispatch + combine in 58 MoE layers: 116 · 27.389 µs = 3.1771 ms per step
    one = 7_340_032 * 7 / 8 / (450e9 * EFF) + 7 * ALPHA
    assert r.all_to_all_time_s == pytest.approx(116 * one) and r.all_to_all_time_s == pytest.approx(3.1771e-3, rel=1e-4)
    assert r.communication_time_s == pytest.approx(r.all_to_all_time_s)  # TP 1: no all-reduce
    assert r.expert_imbalance == pytest.approx(1.08871, abs=1e-5)


def test_all_to_all_of_deepseek_v3_decode_on_32_gpus_by_hand():
    r = step_time(DSV3, GPUS["h200"], batch=64, context_tokens=4096, tp=1, dp=32, ep=32, **fp8())
    # 4 nodes: of each GPU's 7,340,032 B, 7/32 go to GPUs in its node (NVLink 450e9 B/s) and 24/32 leave it over a
    # 400 Gb/s NIC (50e9 B/s): 7,340,032 · (7/32 / 450e9 + 24/32 / 50e9) / 0.7 + 31 · 1 µs = 193.38 µs per all-to-all,
    # × 116 = 22.43 ms per step: the wide deployment is bound by the NIC, not NVLink
    one = 7_340_032 * (7 / 32 / 450e9 + 24 / 32 / 50e9) / EFF + 31 * ALPHA
    assert one == pytest.approx(193.38e-6, rel=1e-4)
    assert r.all_to_all_time_s == pytest.approx(116 * one)
    assert r.expert_imbalance == pytest.approx(1.11452, abs=1e-5)
    # each GPU computes its 8 experts for the busiest rank's share of the 2,048 tokens:
    # 2 · 58 · 8 · 44,040,192 · 2,048 / 32 · 1.11452 FLOP, beside the replicated dense part for its own 64 tokens
    experts = 2 * 58 * 8 * 44_040_192 * 2048 / 32 * r.expert_imbalance
    assert "2.915e+12 FLOP" in r.derivation and experts == pytest.approx(2.915e12, rel=1e-3)


@pytest.mark.parametrize("layout", [dict(tp=1, dp=8, ep=8), dict(tp=1, dp=32, ep=32), dict(tp=8, pp=2),
                                    dict(tp=2, dp=4)])
def test_engine_step_cost_matches_the_roofline_with_parallelism(layout):
    r = step_time(DSV3, GPUS["h200"], batch=16, context_tokens=1000, **layout, **fp8())
    cost = roofline_step_cost(DSV3, GPUS["h200"], weight_dtype="fp8", kv_dtype="fp8", tp=layout["tp"],
                              par=parallelism(DSV3, **layout))
    ranks = layout.get("dp", 1)
    assert cost(np.ones(16 * ranks), np.full(16 * ranks, 1000.0)) == pytest.approx(r.step_time_s, rel=1e-12)


def test_pipeline_stages_hold_their_layers_and_run_in_turn():
    one = step_time(MODELS["llama-3.1-70b"], GPUS["h100-sxm"], batch=8, context_tokens=1000, tp=4)
    two = step_time(MODELS["llama-3.1-70b"], GPUS["h100-sxm"], batch=8, context_tokens=1000, tp=4, pp=2)
    assert two.weight_bytes_per_gpu == pytest.approx(one.weight_bytes_per_gpu / 2)
    # same compute and memory time (half per stage, two stages in turn) plus one send of 8 · 8,192 · 2 B between them
    assert two.memory_time_s == pytest.approx(one.memory_time_s)
    send = 8 * 8192 * 2 / (450e9 * EFF) + ALPHA
    assert two.communication_time_s == pytest.approx(one.communication_time_s + send)


@pytest.mark.parametrize("model, layout, field, words", [
    ("llama-3.1-8b", dict(tp=1, dp=2, ep=2), "expert_parallel", "no experts"),
    ("deepseek-v3", dict(tp=2, dp=2, ep=8), "expert_parallel", "tensor_parallel × data_parallel = 2 × 2 = 4"),
    ("deepseek-v3", dict(tp=1, dp=3, ep=3), "expert_parallel", "must divide"),
    ("llama-3.1-8b", dict(pp=33), "pipeline_parallel", "32 layers"),
    ("llama-3.1-8b", dict(dp=0), "data_parallel", "whole number"),
])
def test_bad_layouts_name_the_field(model, layout, field, words):
    with pytest.raises(ModelInputError) as err:
        parallelism(MODELS[model], **layout)
    assert err.value.field == field and words in err.value.message


def test_mla_attention_flops_are_the_absorbed_latent_form_in_decode_and_the_heads_in_prefill():
    """FlashMLA's deep dive (github.com/deepseek-ai/FlashMLA docs/20250422-new-kernel-deep-dive.md): decode attention
    costs 2·h_q·s_q·s_k·(d_k + d_v) with d_k = 512 + 64 = 576 and d_v = 512 over the latent cache; prefill attends over
    up-projected heads, d_qk = 128 + 64 = 192 and d_v = 128 (config.json: kv_lora_rank 512, qk_rope_head_dim 64,
    qk_nope_head_dim 128, v_head_dim 128, 128 heads, 61 MLA layers)."""
    g = GPUS["h200"]
    # One decode token per sequence, batch 1, 4,096 tokens of context more (the causal average ctx + 1 moves by the
    # context alone): 2 · 128 · 1,088 · 61 · 4,096 ÷ TP 8 = 16,990,208 · 4,096 ÷ 8 = 8,698,986,496 FLOP per GPU more.
    far, near = (step_time(DSV3, g, batch=1, context_tokens=c, tp=8, **fp8()) for c in (4096, 0))
    assert far.flops_per_gpu - near.flops_per_gpu == pytest.approx(8_698_986_496, rel=1e-9)
    assert "1088 in decode" in far.derivation
    # A 512-token prefill chunk after the same 4,096 tokens: 2 · 128 · 320 · 61 · 512 · 4,096 ÷ 8
    # = 4,997,120 · 2,097,152 ÷ 8 = 1,309,965,025,280 FLOP per GPU more.
    far, near = (step_time(DSV3, g, batch=1, context_tokens=c, new_tokens=512, tp=8, **fp8()) for c in (4096, 0))
    assert far.flops_per_gpu - near.flops_per_gpu == pytest.approx(1_309_965_025_280, rel=1e-9)


def test_the_engine_prices_mla_decode_attention_as_the_roofline_where_it_is_compute_bound():
    # Data-parallel attention (TP 1, DP 8, EP 8): every GPU runs all 128 heads, so decode attention does
    # 2 · 128 · 1,088 / 576 ≈ 483 FLOP per latent byte, above H200's FP8 decode ridge 1,979e12 · 0.3376 /
    # (4.8e12 · 0.6218) ≈ 224. 64 sequences per rank at 100,000 tokens: 2 · 128 · 1,088 · 61 · 100,000 · 64 = 1.1e14
    # FLOP (≈ 170 ms) against 225 GB of latent cache and 99 GB of weights (≈ 111 ms). A pricing what-if: that cache
    # would not fit in 141 GB, which step time does not check.
    layout = dict(tp=1, dp=8, ep=8)
    r = step_time(DSV3, GPUS["h200"], batch=64, context_tokens=100_000, **layout, **fp8())
    assert r.bound == "compute"
    cost = roofline_step_cost(DSV3, GPUS["h200"], weight_dtype="fp8", kv_dtype="fp8", tp=1,
                              par=parallelism(DSV3, **layout))
    assert cost(np.ones(64 * 8), np.full(64 * 8, 100_000.0)) == pytest.approx(r.step_time_s, rel=1e-12)


def test_an_fp8_model_with_a_bf16_cache_attends_at_the_bf16_peak_in_step_time_and_the_engine():
    # dstack's DeepSeek-R1 runs: FP8 weights, BF16 KV cache (the engine default). Attention's matmuls take the
    # cache's operands, so they run at H200's BF16 peak 989.4e12, not the FP8 peak 1,978.9e12 the weights' GEMMs
    # use. Same layout as above, 64 sequences per rank at 100,000 tokens (ctx_eff = 100,000 + (1 + 1)/2 = 100,001
    # for one new token): decode attention 2 · 128 · 1,088 · 61 · 100,001 · 64 = 1.08738e14 FLOP, 253.58 ms at the
    # BF16 peak · decode MFU 0.4334 instead of 126.79 ms at the FP8 peak: 126.80 ms more; every other term of the
    # step is the same.
    layout = dict(tp=1, dp=8, ep=8)
    attention = 2 * 128 * 1088 * 61 * 100_001 * 64
    fp8_cache, bf16_cache = (step_time(DSV3, GPUS["h200"], batch=64, context_tokens=100_000, weight_dtype="fp8",
                                       kv_dtype=kv, **layout) for kv in ("fp8", "bf16"))
    assert fp8_cache.flops_per_gpu == bf16_cache.flops_per_gpu
    assert bf16_cache.compute_time_s - fp8_cache.compute_time_s == pytest.approx(
        attention / (989.4e12 * 0.4334) - attention / (1_978.9e12 * 0.4334), rel=1e-9)
    assert "bf16 cache's operands and run at 989.4 TFLOP/s, not 1,978.9" in bf16_cache.derivation
    cost = roofline_step_cost(DSV3, GPUS["h200"], weight_dtype="fp8", kv_dtype="bf16", tp=1,
                              par=parallelism(DSV3, **layout))
    assert cost(np.ones(64 * 8), np.full(64 * 8, 100_000.0)) == pytest.approx(bf16_cache.step_time_s, rel=1e-12)
