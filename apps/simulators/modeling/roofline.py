"""Roofline step time for one engine step (prefill chunk or decode) on TP GPUs.

FLOPs per step (whole model, then ÷ TP):
  linear    = 2 · (active params − LM head) · T + 2 · V · h · batch   (logits only for each
              sequence's last token, as vLLM computes them)
  attention = 2 · H · (d_qk + d_v) · T · ctx_eff per layer, ctx_eff = context + (n + 1)/2
              (causal average over the n new tokens; BLIS `roofline.go`), min(·, window)
              on sliding-window layers. MHA/GQA: d_qk = d_v = d_h → 4·H·d_h·ctx. MLA (attention_head_dims):
              prefill attends over up-projected heads, d_qk = nope + rope, d_v = v_head_dim (192 + 128 on
              DeepSeek-V3); decode runs the absorbed form over the latent cache, d_qk = kv_lora_rank + rope,
              d_v = kv_lora_rank (576 + 512: FlashMLA's deep dive, FLOPs ≈ 2·h_q·s_q·s_k·(d_k + d_v)).
Bytes per step per GPU:
  weights once per step (embedding and learned position tables excluded, they are lookups); MoE experts via the
  expected number of distinct experts N·(1 − ((N − k)/N)^T) per layer (uniform routing,
  an upper bound: correlated routing touches fewer) ÷ TP
  + KV read of every cached token + KV write of the T new tokens (kv.py, per-rank heads)
  + activations L · h · B · T · 2 (read + write; replicated on every rank)
  + a MoE layer's expert elementwise kernels, per (token, expert) pair B · (mlp_matrices · w + h · (1 + 1/k)) with w
  the expert's width on the GPU (silu_and_mul and moe_sum between and after the grouped GEMMs;
  expert_elementwise_bytes).
Communication: Megatron TP does 2 all-reduces per layer of T · h · B bytes; ring cost
  2(N−1)/N · M / (BW_link · eff) + 2(N−1)·α with BW_link = one direction of the
  datasheet NVLink/PCIe total.
step = max(t_compute, t_memory) of the GEMMs (FLOPs of the weights, bytes of the weights and activations)
  + max(t_compute, t_memory) of attention (its FLOPs, the KV bytes) + (t_compute + t_memory) of a MoE layer's routed
  experts (their FLOPs and the distinct experts' bytes) + t_comm + t_overhead. The parts run one after the other, each
  at its own roofline: at decode attention reads the KV cache while the GEMMs of a large batch are compute-bound, and
  an expert sees T·k/N tokens; one max over the summed work would hide one part's time under another's. The routed
  experts take the no-overlap bound, compute plus the traffic of their weights and elementwise kernels: measured, MoE
  layers run slower than the larger of the two (on the held-out MoE rows of benchmarks/calibration.py the sum lands
  more of them inside their range, for Mixtral, gpt-oss and DeepSeek alike; benchmarks/README.md), and a kernel-level
  model of grouped expert GEMMs is not built. Comm is on the critical path in vLLM TP; overhead = per-step + per-request CPU cost, + kernel launches per
  layer in eager mode, + the routed experts' fixed kernel time per MoE layer (step_overhead.py).
Parallelism (parallel.py), for one DP rank's batch: non-expert FLOPs and bytes ÷ TP; the routed experts of a MoE
  layer see the tokens of all DP ranks (T_g = DP · T) spread over TP · DP GPUs, so expert FLOPs per GPU =
  2 · (routed active params) · T_g / (TP · DP) × the busiest EP rank's imbalance (moe.ep_rank_imbalance; 1 without
  EP, where every GPU holds a slice of every expert) and expert bytes = distinct experts of T_g ÷ (TP · DP);
  everything ÷ PP per stage, and a step passes the PP stages in turn: step = PP · max(t_compute, t_memory) per stage
  + comm + overhead. Per MoE layer, EP adds a dispatch and a combine all-to-all of (T/TP) · k · h · B bytes per GPU
  (DP without EP: an all-gather and a reduce-scatter of T_g · h · B) over the group, in-node share at NVLink and the
  rest at the 400 Gb/s NIC (parallel.spread_time); PP adds PP − 1 stage-to-stage sends of T · h · B.
t_compute = FLOPs / (peak · MFU), with the decode MFU for a step of one new token per sequence (decode GEMMs of
  a batch's single tokens reach a smaller share of the peak than a prompt's);
t_memory = (weights + activations) / (BW · MBU) + KV bytes / (BW · KV-read efficiency): the GEMMs' weight streaming
  and the attention kernels' KV reads reach different shares of the bandwidth.
Efficiency priors are ranges per GPU family and compute dtype (prior_basis: fitted to published measurements of that
family and dtype, FITTED_PRIORS: Hopper FP8, Blackwell NVFP4, CDNA3 FP8, Ampere BF16; a family/dtype without a fit
borrows a fitted set with the reason, DERIVED_PRIORS; the hand-set PRIORS for other families); outputs carry the
expected value and
`*_range` = [optimistic, pessimistic]. Sources: SIMULATOR-NOTES §2.3–2.5, §2.7; benchmarks/calibration.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ._util import MAX_BATCH, MAX_CONTEXT_TOKENS, fmt, non_negative, out, positive
from .errors import ModelInputError
from .kv import kv_bytes_per_token_per_layer
from .memory import expert_weight_bytes, weight_bytes
from .moe import ep_rank_imbalance
from .parallel import GPUS_PER_NODE, SCALE_OUT_BANDWIDTH_BYTES_PER_S, Parallelism, parallelism, spread_time
from .specs import GPUSpec, ModelSpec, count_params, dtype_bytes
from .step_overhead import StepOverhead, step_overhead
from .step_overhead import describe as describe_overhead


@dataclass(frozen=True)
class Prior:
    """A low / expected / high triple with its source."""

    low: float
    expected: float
    high: float
    source: str


@dataclass(frozen=True)
class EfficiencyPriors:
    """Efficiency factors of the roofline terms. These defaults (PRIORS) are the literature's hand-set values, used
    for GPU families without published measurements to fit; FAMILY_PRIORS holds the fitted ones (priors_for)."""

    mfu: Prior = Prior(
        0.30, 0.45, 0.60,
        "BLIS hardware_config.json MFU H100 prefill 0.45 / decode 0.30, A100 0.38; "
        "llm-analysis README 'up to 0.7 for inference' (SIMULATOR-NOTES table 2.7)",
    )
    decode_mfu: Prior = Prior(
        0.30, 0.45, 0.60,
        "no separate figure applied: the same as MFU (BLIS's H100 decode MFU 0.30 is for its own model's terms)",
    )
    mbu: Prior = Prior(
        0.60, 0.75, 0.85,
        "llm-analysis CLI warning 'benchmarks show closer to 0.6–0.7' of HBM peak, 0.9 aggressive; "
        "fitmyllm decode efficiency 0.36–0.53 end to end (SIMULATOR-NOTES table 2.7)",
    )
    kv_read_efficiency: Prior = Prior(
        0.60, 0.75, 0.85,
        "no separate literature figure: the same share of HBM bandwidth as the weight reads (MBU)",
    )
    comm_efficiency: Prior = Prior(
        0.50, 0.70, 0.85,
        "NCCL issue #1264: 749 of 900 GB/s (83 %) in p2pBandwidthLatencyTest on H100; "
        "calculon a100_80g.json network efficiency 0.65; BLIS learned β4 ≈ 0.75",
    )
    step_overhead_s: Prior = Prior(
        50e-6, 150e-6, 500e-6,
        "BLIS trained-physics β7 ≈ 126 µs per step (SIMULATOR-NOTES 2.4, rec. 11); high end "
        "covers eager mode without CUDA graphs",
    )
    per_request_overhead_s: Prior = Prior(
        1e-6, 4e-6, 10e-6, "BLIS trained-physics β6 ≈ 4 µs per request in the batch",
    )


PRIORS = EfficiencyPriors()  # families without measurements (Ampere, Ada, AMD, inline GPUs)

# Fitted by benchmarks/calibration.py to published serving measurements (fixtures/serving-measurements.yaml, TensorRT-LLM's
# perf-overview at commit 00f3768, and fixtures/serving-measurements-external.yaml): per family and compute dtype, the
# (MFU, decode MFU, MBU, KV-read efficiency) minimising the squared log error over its dense models' rows; low / high =
# expected × the 2.5th / 97.5th percentile of the rows' measured/predicted ratios at the fit (all four factors scale
# together, so the step time scales by their inverse; a high end above 1.0 is cut to 1.0). Effective factors of the
# simulator's roofline terms, not kernel measurements. Only the factors the rows identify are fitted (at least three rows
# whose prediction moves by 0.25 or more per unit log change of the factor); the others stay where the fit started (the
# hand-set PRIORS, or the fit a family borrows from) and their source says so. The weight-read MBU is held to the
# literature's 0.60-0.85 in the fit, and every fit that identifies it sits at its lower end, 0.60.
_FIT = "fitted by benchmarks/calibration.py to "
_HOPPER_ROWS = ("TensorRT-LLM trtllm-bench offline throughput, fixtures/serving-measurements.yaml setups "
                "llama-3.1-8b-fp8-h100-tp1, llama-3.1-8b-fp8-h200-tp1, llama-3.3-70b-fp8-h100-tp2, "
                "llama-3.3-70b-fp8-h200-tp1, llama-3.1-405b-fp8-h100-tp8, llama-3.1-405b-fp8-h200-tp8 (60 rows), and NVIDIA "
                "NIM's Llama 3.3 70B on 2 x H100, fixtures/serving-measurements-external.yaml setups nim-* (9 rows); FP8; "
                "range: 2.5th-97.5th percentile of measured/predicted 0.784-1.135")
_BLACKWELL_ROWS = ("TensorRT-LLM trtllm-bench offline throughput, fixtures/serving-measurements.yaml setups "
                   "llama-3.3-70b-fp4-b200-tp1, llama-3.1-405b-fp4-b200-tp4 (20 rows, NVFP4 weights, FP8 KV); "
                   "range: 2.5th-97.5th percentile of measured/predicted 0.873-1.117")
_NOT_IDENTIFIED = "not identified by the fit's rows (fewer than three depend on it), so {start}"


def _fitted(family: str, peak: str, fit: str, mfu, decode_mfu, mbu, kv, held: dict[str, str] | None = None):
    """A family's fitted factors, each a (low, expected, high) triple, with the fit and rows they came from as the
    source (`peak`: which peak the MFUs are shares of, '' where the family's name says it; `held`: the factors the rows
    did not identify, with where their value comes from instead)."""
    held = held or {}
    def prior(name, triple, what):
        reason = _NOT_IDENTIFIED.format(start=held[name]) + ", range from " if name in held else ""
        return Prior(*triple, f"{family} {what}, {reason}{fit}")
    return EfficiencyPriors(mfu=prior("mfu", mfu, f"prefill MFU{peak}"),
                            decode_mfu=prior("decode_mfu", decode_mfu, f"decode MFU{peak}"),
                            mbu=prior("mbu", mbu, "weight-read MBU"),
                            kv_read_efficiency=prior("kv_read_efficiency", kv, "KV-cache read efficiency"))


HOPPER_PRIORS = _fitted("Hopper", "", _FIT + _HOPPER_ROWS, (0.426, 0.5428, 0.616), (0.340, 0.4334, 0.492),
                        (0.471, 0.60, 0.681), (0.675, 0.8607, 0.977))
BLACKWELL_PRIORS = _fitted("Blackwell", " (of the NVFP4 peak)", _FIT + _BLACKWELL_ROWS, (0.374, 0.4281, 0.478),
                           (0.254, 0.2905, 0.325), (0.524, 0.60, 0.670), (0.456, 0.522, 0.583),
                           held={"mbu": "Hopper FP8's fitted 0.60, the fit Blackwell starts from"})
# AMD CDNA3 (MI300X) in FP8 under vLLM, fitted to AMD's ROCm blog and performance pages and Oracle Cloud's blog (36 rows
# of Llama 3.1 70B and 405B FP8 at TP 8, offline throughput, fixed concurrency and static-batch latency). vLLM on these
# GPUs reaches far smaller shares of the peaks than TensorRT-LLM on Hopper, and batch-1 latencies are still slower than
# predicted (step overheads and RCCL latency the roofline does not model; see benchmarks/README.md).
_CDNA3_ROWS = ("vLLM on MI300X, fixtures/serving-measurements-external.yaml setups amd-rocm-blog-*, amd-docs-*, oracle-* "
               "(36 rows, FP8 weights); range: 2.5th-97.5th percentile of measured/predicted 0.511-1.324")
CDNA3_PRIORS = _fitted("CDNA3", " (of the FP8 peak)", _FIT + _CDNA3_ROWS, (0.075, 0.1461, 0.193),
                       (0.082, 0.1595, 0.211), (0.307, 0.60, 0.795), (0.383, 0.75, 0.993),
                       held={"kv_read_efficiency": "the hand-set prior 0.75"})
# NVIDIA Ampere (A100) in BF16/FP16: LMDeploy's TurboMind on A100 80GB (40 rows of Llama 2 7B and 70B in FP16 at 1 to 64
# concurrent sessions), vLLM's performance CI (2 static-batch latencies of Llama 3.1 8B and 70B in BF16) and GPUStack's
# vLLM runs of Qwen3-32B (5 offline rows).
_AMPERE_ROWS = ("LMDeploy and vLLM on A100, fixtures/serving-measurements-external.yaml setups lmdeploy-docs-*-a100-*, "
                "vllm-ci-llama-*-a100-80gb-*, gpustack-qwen3-32b-bf16-a100-80gb-* (47 rows, FP16/BF16 weights); range: "
                "2.5th-97.5th percentile of measured/predicted 0.770-1.273")
AMPERE_PRIORS = _fitted("Ampere", " (of the BF16 peak)", _FIT + _AMPERE_ROWS, (0.474, 0.6151, 0.783),
                        (0.347, 0.45, 0.573), (0.462, 0.60, 0.764), (0.607, 0.7886, 1.0),
                        held={"decode_mfu": "the hand-set prior 0.45 (these runs' decode is memory-bound)"})
# Fitted priors are keyed by GPU family and the math the weights run (compute_dtype): an FP4 fit says nothing about
# FP8 kernels, so each is applied only to deployments of its own dtype.
FITTED_PRIORS = {("hopper", "fp8"): HOPPER_PRIORS, ("blackwell", "fp4"): BLACKWELL_PRIORS, ("cdna3", "fp8"): CDNA3_PRIORS,
                 ("ampere", "bf16"): AMPERE_PRIORS}
FAMILY_PRIORS = {"hopper": HOPPER_PRIORS, "blackwell": BLACKWELL_PRIORS, "cdna3": CDNA3_PRIORS,
                 "ampere": AMPERE_PRIORS}  # each family's fit
_NO_ROWS = "no {family} {dtype} rows in the fit set"
# A family/dtype without a fit borrows a fitted set, and the answer says which and why. Efficiencies are shares of the
# deployment's own peak FLOP/s and HBM bandwidth, so borrowing them keeps the GPU and dtype's peaks and bandwidth:
# B200/H200 in FP8 then follows 4.5/1.98 PFLOP/s of FP8 peak and 8.0/4.8 TB/s, not a fitted NVFP4 factor.
DERIVED_PRIORS = {
    # Hopper BF16 has 9 rows but no fit (the reason below, on GPUStack's 4000/200 to 128/4 runs). Fitted, that one
    # harness set every Hopper BF16 prefill to 0.287 of peak, and TensorRT-LLM's Mixtral FP16 rows on H100 and H200
    # measured 1.5-1.8x faster than that fit's range.
    ("hopper", "bf16"): (("hopper", "fp8"), "Hopper BF16 is not fitted: its only rows that pin the prefill MFU (GPUStack's "
                         "vLLM runs of Qwen3-32B on one H100) ran 1.17-1.51x the same runs on an A100 where the peak is "
                         "3.17x and the bandwidth 1.64x; Hopper FP8's fitted factors applied to the BF16 peak and the same "
                         "HBM (the same attention kernels and weight streaming; only the GEMM dtype differs)"),
    ("blackwell", "fp8"): (("hopper", "fp8"), _NO_ROWS + ": Hopper FP8's fitted factors applied to B200's FP8 peak and "
                           "HBM3e bandwidth (the NVFP4 fit's KV-read efficiency 0.52 is an FP4-run effect, not a "
                           "property of FP8 kernels), so B200/H200 follows the peak and bandwidth ratios"),
    ("blackwell", "bf16"): (("hopper", "fp8"), _NO_ROWS + ": Hopper FP8's fitted factors applied to B200's BF16 peak "
                            "and HBM3e bandwidth"),
    ("cdna3", "bf16"): (("cdna3", "fp8"), _NO_ROWS + ": CDNA3 FP8's fitted factors (vLLM on MI300X) applied to the BF16 "
                        "peak and the same HBM3"),
    ("ampere", "fp8"): (("ampere", "bf16"), _NO_ROWS + ": Ampere has no FP8; its INT8 W8A8 GEMMs take Ampere BF16's "
                        "fitted factors applied to the INT8 peak"),
    # Used only while a family/dtype with a fit has no rows (leave-one-source-out in calibration.py holds TensorRT-LLM's
    # NVFP4 rows out): the nearest measured shares rather than the literature's hand-set priors.
    ("blackwell", "fp4"): (("hopper", "fp8"), _NO_ROWS + ": Hopper FP8's fitted factors applied to B200's FP4 peak and "
                           "HBM3e bandwidth"),
}
# The catalog has no architecture field: the family is read from the slug, else from the product name.
_FAMILY_SLUGS = {"h100-sxm": "hopper", "h100-pcie": "hopper", "h100-nvl": "hopper", "h200": "hopper", "b200": "blackwell",
                 "mi300x": "cdna3", "a100-40gb": "ampere", "a100-80gb": "ampere"}
_FAMILY_NAMES = (
    ("ampere", re.compile(r"\b(?:A100|A800)\b", re.IGNORECASE)),
    ("hopper", re.compile(r"\b(?:GH|H)(?:100|200|800|20)\b", re.IGNORECASE)),
    ("blackwell", re.compile(r"\b(?:GB|B)(?:100|200|300)\b", re.IGNORECASE)),
)
_AMD_FAMILY_NAMES = (("cdna3", re.compile(r"\bMI3(?:00|25)X\b", re.IGNORECASE)),)


def gpu_family(gpu: GPUSpec) -> str:
    """'ampere' (A100), 'hopper', 'blackwell', 'cdna3' (AMD MI300X/MI325X) or '' (no fitted family): by catalog slug,
    else a product name in the GPU's name."""
    if gpu.slug in _FAMILY_SLUGS:
        return _FAMILY_SLUGS[gpu.slug]
    names = {"nvidia": _FAMILY_NAMES, "amd": _AMD_FAMILY_NAMES}.get(gpu.vendor.lower(), ())
    for family, pattern in names:
        if pattern.search(gpu.name):
            return family
    return ""


def compute_dtype(gpu: GPUSpec, weight_dtype: str) -> str:
    """The math a deployment's GEMMs run, as priors are keyed (GPUSpec.peak_flops picks the same peak): 'fp4' (NVFP4
    on FP4 tensor cores), 'fp8' (8-bit GEMMs: FP8, or INT8 W8A8, where the GPU has them), else 'bf16' (BF16 math,
    weight-only INT4/MXFP4 and FP8-on-Ampere included)."""
    key = weight_dtype.lower()
    if key == "fp4" and gpu.fp4_dense_flops:
        return "fp4"
    if (key == "fp8" and gpu.fp8_dense_flops) or (key == "int8" and gpu.int8_dense_ops):
        return "fp8"
    return "bf16"


@dataclass(frozen=True)
class PriorBasis:
    """Which priors a deployment gets and why (the answer's priors.basis)."""

    family: str
    compute_dtype: str
    fitted: bool
    reason: str


def prior_basis(gpu: GPUSpec, weight_dtype: str = "bf16") -> tuple[EfficiencyPriors, PriorBasis]:
    """The priors fitted on rows of this GPU family and compute dtype; else a derived set (DERIVED_PRIORS) with the
    reason; else (no fitted family) the hand-set PRIORS."""
    family, dtype = gpu_family(gpu), compute_dtype(gpu, weight_dtype)
    if (family, dtype) in FITTED_PRIORS:
        return FITTED_PRIORS[family, dtype], PriorBasis(family, dtype, True, f"fitted on {family} {dtype} rows")
    if (family, dtype) in DERIVED_PRIORS:
        source, reason = DERIVED_PRIORS[family, dtype]
        return FITTED_PRIORS[source], PriorBasis(family, dtype, False, reason.format(family=family, dtype=dtype.upper()))
    return PRIORS, PriorBasis(family, dtype, False, "no measurements of this GPU family: the literature's hand-set "
                                                    "priors (roofline.PRIORS)")


def priors_for(gpu: GPUSpec, weight_dtype: str = "bf16") -> EfficiencyPriors:
    """The priors of this GPU family and compute dtype (prior_basis)."""
    return prior_basis(gpu, weight_dtype)[0]


# The parts of a layer whose compute and memory traffic add up instead of overlapping: a MoE layer's routed experts
# (the no-overlap bound; module docstring). The others take the longer of the two.
SERIAL_PARTS = frozenset({"experts"})
DEFAULT_LINK_LATENCY_S = 1e-6  # per ring hop; NVLink ~1 µs, PCIe a few µs (GenZ uses 5 µs + hops)
BOUNDS = ("compute", "memory", "communication", "overhead")


@dataclass(frozen=True)
class StepResult:
    flops_per_gpu: float | np.ndarray
    bytes_per_gpu: float | np.ndarray
    weight_bytes_per_gpu: float | np.ndarray
    kv_bytes_per_gpu: float | np.ndarray
    arithmetic_intensity: float | np.ndarray   # FLOP / byte
    ridge_point: float                         # peak FLOP/s ÷ bandwidth, FLOP / byte
    compute_time_s: float | np.ndarray
    memory_time_s: float | np.ndarray
    communication_time_s: float | np.ndarray
    overhead_time_s: float | np.ndarray
    step_time_s: float | np.ndarray
    step_time_s_range: list
    tokens_per_s: float | np.ndarray           # tokens processed per second (prefill + decode)
    tokens_per_s_range: list
    output_tokens_per_s: float | np.ndarray    # one new token per sequence per step
    bound: str | np.ndarray
    crossover_batch: float | np.ndarray        # batch where compute time = memory time
    crossover_reachable: bool | np.ndarray
    distinct_experts_per_layer: float | np.ndarray
    note: str
    derivation: str
    priors: dict = field(default_factory=dict)
    expert_imbalance: float | np.ndarray = 1.0     # busiest EP rank's load ÷ mean (1 without EP)
    all_to_all_time_s: float | np.ndarray = 0.0    # MoE dispatch + combine per step (part of communication)
    expert_kernels_time_s: float = 0.0  # the routed experts' fixed kernel time per step (part of overhead)
    # (compute, memory, seconds) of each part of a layer, which run one after the other: gemms, attention, experts (MoE)
    part_times_s: dict = field(default_factory=dict)
    parallel: Parallelism = field(default_factory=Parallelism)


def attention_head_dims(model: ModelSpec) -> tuple[float, float]:
    """d_qk + d_v of one query token against one cached token, per head: (prefill, decode). MLA decodes in the
    absorbed form (vLLM, SGLang and FlashMLA all do): queries are folded into the latent space and attend over the
    cached latent, K = kv_lora_rank + rope dims, V = kv_lora_rank (DeepSeek-V3: 576 + 512; github.com/deepseek-ai/
    FlashMLA docs/20250422-new-kernel-deep-dive.md). Prefill up-projects the heads: nope + rope and v_head_dim
    (192 + 128)."""
    if model.attention != "mla":
        return 2.0 * model.head_dim, 2.0 * model.head_dim
    rope = model.qk_rope_head_dim or 0
    latent = model.kv_lora_rank or 0
    return float((model.qk_nope_head_dim or 0) + rope + (model.v_head_dim or 0)), float(2 * latent + rope)


def attention_peak_flops(gpu: GPUSpec, weight_dtype: str, kv_dtype: str) -> float:
    """The peak attention's matmuls run at. Q·Kᵀ and P·V take the KV cache's operands: an FP8 (or NVFP4) cache runs
    FP8 MMAs where the GPU has them (FlashAttention-3's FP8 path, TensorRT-LLM's FP8 FMHA and XQA), any other cache
    BF16 (an FP8-weight model with a BF16 cache attends in BF16); never faster than the weights' own math, and never
    FP4: no serving engine computes attention in FP4, so an NVFP4 deployment attends at the FP8 peak."""
    attn = "fp8" if kv_dtype.lower() in ("fp8", "fp4") and gpu.fp8_dense_flops else "bf16"
    return min(gpu.peak_flops(weight_dtype), gpu.peak_flops(attn))


def attention_cost(gpu: GPUSpec, weight_dtype: str, kv_dtype: str) -> float:
    """The weights' peak over attention's (attention_peak_flops), >= 1: an attention FLOP counts as this many FLOPs at
    the peak t_compute divides by (step time and the engine's step cost)."""
    return gpu.peak_flops(weight_dtype) / attention_peak_flops(gpu, weight_dtype, kv_dtype)


def expected_distinct_experts(num_experts: int, top_k: int, tokens) -> np.ndarray:
    """N · (1 − ((N − k)/N)^T): experts touched by T tokens under uniform top-k routing."""
    t = np.asarray(tokens, dtype=float)
    return num_experts * (1.0 - ((num_experts - top_k) / num_experts) ** t)


def step_time(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    batch=1,
    context_tokens=0,
    new_tokens=1,
    tp: int = 1,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    act_dtype: str = "bf16",
    link_latency_s: float = DEFAULT_LINK_LATENCY_S,
    priors: EfficiencyPriors | None = None,
    pp: int = 1,
    dp: int = 1,
    ep: int = 1,
    expert_routing_skew: float = 0.0,
    cuda_graphs: bool = True,
) -> StepResult:
    """Time of one engine step for `batch` sequences (per DP rank) with `context_tokens` cached each and
    `new_tokens` processed each (decode: 1; prefill: the prompt or chunk). Vectorized. `expert_routing_skew` is the
    Zipf exponent of expert popularity (moe.py; 0 = uniform routing). `priors`: the GPU family's by default
    (priors_for). `cuda_graphs`: False is vLLM's enforce_eager, whose kernel launches add to every step
    (step_overhead.py)."""
    chosen, basis = prior_basis(gpu, weight_dtype)
    priors = priors or chosen
    b = positive("batch", batch, MAX_BATCH)
    ctx = non_negative("context_tokens", context_tokens, MAX_CONTEXT_TOKENS)
    n = positive("new_tokens", new_tokens, MAX_CONTEXT_TOKENS)
    if np.any(ctx + n > MAX_CONTEXT_TOKENS):
        raise ModelInputError("context_tokens", "context + new tokens must be <= 10,000,000")
    if int(tp) != tp or not 1 <= tp <= 1024:
        raise ModelInputError("tp", "must be a whole number between 1 and 1024")
    non_negative("link_latency_s", link_latency_s, 1.0)
    par = parallelism(model, tp=int(tp), pp=pp, dp=dp, ep=ep)
    w = _work(model, gpu, b, ctx, n, par, weight_dtype, kv_dtype, act_dtype, expert_routing_skew)
    peak = gpu.peak_flops(weight_dtype)
    bw = gpu.hbm_bandwidth_bytes_per_s
    link_bw = gpu.interconnect_bandwidth_bytes_per_s / 2.0
    times, fixed = {}, {}
    for key, (mfu_, decode_mfu_, mbu_, kvbu_, eff_) in _prior_picks(priors).items():  # with step_overhead.py's cost
        fixed[key] = step_overhead(priors, model.num_layers, cuda_graphs=cuda_graphs, case=key,
                                   moe_layers=model.num_moe_layers)
        times[key] = _times(w, peak, bw, link_bw, link_latency_s, par, b, model, mfu_, decode_mfu_, mbu_, kvbu_, eff_,
                            fixed[key])
    t_c, t_m, t_x, t_o, step, a2a, parts = times["expected"]
    fast, slow = times["optimistic"][4], times["pessimistic"][4]
    tokens = b * n
    stack = np.stack(np.broadcast_arrays(t_c, t_m, t_x, t_o))
    bound_idx = np.argmax(stack, axis=0)
    bound = np.asarray(BOUNDS)[bound_idx]
    mfu = np.where(w["decode"], priors.decode_mfu.expected, priors.mfu.expected)
    mbu, kvbu = priors.mbu.expected, priors.kv_read_efficiency.expected
    per_seq_flops = w["compute_flops_gpu"] / b
    denom = per_seq_flops / (peak * mfu) - w["kv_gpu"] / b / (bw * kvbu) - w["act_gpu"] / b / (bw * mbu)
    reachable = denom > 0
    cross = np.where(reachable, (w["weights_gpu"] / (bw * mbu)) / np.where(reachable, denom, 1.0), MAX_BATCH)
    cross = np.minimum(cross, MAX_BATCH)
    result = StepResult(
        flops_per_gpu=out(w["flops_gpu"]),
        bytes_per_gpu=out(w["bytes_gpu"]),
        weight_bytes_per_gpu=out(w["weights_gpu"]),
        kv_bytes_per_gpu=out(w["kv_gpu"]),
        arithmetic_intensity=out(w["flops_gpu"] / w["bytes_gpu"]),
        ridge_point=peak / bw,
        compute_time_s=out(t_c),
        memory_time_s=out(t_m),
        communication_time_s=out(t_x),
        overhead_time_s=out(t_o),
        step_time_s=out(step),
        step_time_s_range=[out(fast), out(slow)],
        tokens_per_s=out(tokens / step),
        tokens_per_s_range=[out(tokens / slow), out(tokens / fast)],
        output_tokens_per_s=out(b / step),
        bound=str(bound) if bound.ndim == 0 else bound,
        crossover_batch=out(cross),
        crossover_reachable=bool(reachable) if np.ndim(reachable) == 0 else reachable,
        distinct_experts_per_layer=out(w["distinct"]),
        note="",
        derivation="",
        priors={**{k: vars(v) for k, v in vars(priors).items()},
                "basis": vars(basis) if priors is chosen else {"family": basis.family, "compute_dtype": basis.compute_dtype,
                                                               "fitted": False, "reason": "priors given by the caller"}},
        expert_imbalance=out(w["imbalance"]),
        all_to_all_time_s=out(a2a),
        expert_kernels_time_s=fixed["expected"].moe_kernels_s,
        parallel=par,
        part_times_s={name: tuple(out(v) for v in times) for name, times in parts.items()},
    )
    note = _note(result, model, gpu, int(tp), bound_idx)
    slower_attention = (f" Attention's matmuls take the {kv_dtype} cache's operands and run at "
                        f"{peak / w['attn_cost'] / 1e12:,.1f} TFLOP/s, not {peak / 1e12:,.1f}: its "
                        f"{fmt(w['attn_gpu'], 'FLOP')} per GPU count as {fmt(w['attn_gpu'] * w['attn_cost'], 'FLOP')} "
                        "at the weights' peak in t_compute." if w["attn_cost"] > 1.0 else "")
    derivation = (_derivation(model, gpu, w, peak, bw, b, ctx, n, par, result, priors, weight_dtype) + slower_attention
                  + f" Overhead: {describe_overhead(priors, model.num_layers, cuda_graphs, model.num_moe_layers)}.")
    return _replace(result, note=note, derivation=derivation)


def expert_elementwise_bytes(model: ModelSpec, par: Parallelism, b_act: float) -> float:
    """Bytes per GPU, per token of the group (before the EP imbalance), of the two elementwise kernels a MoE layer's
    routed experts run between and after their grouped GEMMs. vLLM's and SGLang's fused_experts (fused_moe.py:
    fused_experts_impl) write the first GEMM's output to intermediate_cache1 (T·k × (mlp_matrices − 1)·w), then
    silu_and_mul reads it and writes intermediate_cache2 (T·k × w), and after the second GEMM moe_sum reads
    intermediate_cache3 (T × k × h) and writes the layer's output (T × h); w is one expert's width on this GPU
    (Parallelism.expert_width). Per (token, expert) pair that is
    B · (mlp_matrices · w + h · (1 + 1/k)) (no sum at k = 1: the GEMM writes the output). These are separate kernels,
    so their traffic cannot hide under the GEMMs' math the way a GEMM's own operand reads do; at narrow per-GPU widths
    it rivals the experts' FLOPs (DeepSeek-V3 at TP 8: 256 columns, 17.7 KB per pair against 11 MFLOP)."""
    if not model.is_moe:
        return 0.0
    k = int(model.experts_per_token or 0)
    per_pair = b_act * (model.mlp_matrices * par.expert_width(model) + (model.hidden_size * (1.0 + 1.0 / k) if k > 1 else 0.0))
    return model.num_moe_layers * k * per_pair / (par.expert_shards if par.ep > 1 else 1)


def _work(model, gpu, b, ctx, n, par: Parallelism, weight_dtype, kv_dtype, act_dtype, skew) -> dict:
    m = model
    p = count_params(m)
    b_w = dtype_bytes(weight_dtype, "weight_dtype")
    b_act = dtype_bytes(act_dtype, "act_dtype")
    tp = par.tp
    tokens = b * n
    group_tokens = tokens * par.dp  # what each MoE layer's experts see: every DP rank's tokens
    L, local, window = m.num_layers, m.num_sliding_layers, m.sliding_window or 0
    # FLOPs
    lm_head = float(m.vocab_size * m.hidden_size)
    routed_active = float(m.num_moe_layers * (m.experts_per_token or 0) * p.expert_params_each)
    dense = 2.0 * (p.active - lm_head - routed_active) * tokens + 2.0 * lm_head * b
    prefill_dims, decode_dims = attention_head_dims(m)
    dims = np.where(np.asarray(n) == 1, decode_dims, prefill_dims)
    ctx_eff = ctx + (n + 1.0) / 2.0
    layer_ctx = (L - local) * ctx_eff + (local * np.minimum(ctx_eff, window) if local else 0.0)
    attn = 2.0 * m.num_attention_heads * dims * tokens * layer_ctx
    attn_cost = attention_cost(gpu, weight_dtype, kv_dtype)
    imbalance = np.ones_like(tokens)
    if m.is_moe and par.ep > 1:
        imbalance = np.asarray(ep_rank_imbalance(m.num_experts, m.experts_per_token, group_tokens, par.ep, skew))
    experts_gpu = 2.0 * routed_active * group_tokens / par.expert_shards * imbalance
    linear = dense + 2.0 * routed_active * tokens  # this DP rank's share, whole model
    # Bytes
    all_weights = weight_bytes(m, weight_dtype)
    # Lookup tables are not streamed per step: the token embedding (unless it doubles as the LM
    # head) and a learned position table (16-bit, see memory.weight_bytes).
    table = (p.embedding * 2.0 if not m.tie_word_embeddings else 0.0) + p.position_embedding * 2.0
    distinct = np.zeros_like(tokens)
    touched = np.zeros_like(tokens)
    non_expert = all_weights - table - expert_weight_bytes(m, weight_dtype)
    if m.is_moe:
        distinct = expected_distinct_experts(m.num_experts, m.experts_per_token, group_tokens)
        touched = m.num_moe_layers * distinct * p.expert_params_each * b_w
    per_layer_kv = kv_bytes_per_token_per_layer(m, kv_dtype, tp)
    held = (L - local) * ctx + (local * np.minimum(ctx, window) if local else 0.0)
    kv = per_layer_kv * b * (held + L * n) / par.pp
    act = 2.0 * L * m.hidden_size * b_act * tokens / par.pp
    weights_gpu = (non_expert / tp + touched / par.expert_shards) / par.pp
    expert_act = expert_elementwise_bytes(m, par, b_act) * group_tokens * imbalance / par.pp
    flops_gpu = ((dense + attn) / tp + experts_gpu) / par.pp
    # MoE traffic per GPU per collective: EP all-to-all of this GPU's tokens' k copies, or (DP without EP) the
    # all-gather / reduce-scatter of every DP rank's hidden states.
    moe_group, moe_bytes = 1, np.zeros_like(tokens)
    if m.is_moe and par.ep > 1:
        moe_group, moe_bytes = par.ep, tokens / tp * m.experts_per_token * m.hidden_size * b_act
    elif m.is_moe and par.dp > 1:
        moe_group, moe_bytes = par.dp, group_tokens * m.hidden_size * b_act
    return {
        "flops_gpu": flops_gpu, "linear": linear, "attn": attn, "attn_gpu": attn / tp / par.pp, "attn_cost": attn_cost,
        # attention FLOPs at a lower peak count as that many more FLOPs at the weights' peak
        "compute_flops_gpu": flops_gpu + attn / tp / par.pp * (attn_cost - 1.0), "weights_gpu": weights_gpu,
        "kv_gpu": kv, "act_gpu": act, "bytes_gpu": weights_gpu + kv + act + expert_act, "distinct": distinct,
        "tokens": tokens, "msg_bytes": tokens * m.hidden_size * b_act, "imbalance": imbalance,
        "moe_group": moe_group, "moe_bytes": moe_bytes, "experts_gpu": experts_gpu / par.pp,
        "expert_bytes_gpu": touched / par.expert_shards / par.pp, "expert_act_gpu": expert_act,
        "decode": np.broadcast_to(np.asarray(n) == 1, np.shape(tokens)),
    }


def _prior_picks(pr: EfficiencyPriors) -> dict:
    return {
        "expected": (pr.mfu.expected, pr.decode_mfu.expected, pr.mbu.expected, pr.kv_read_efficiency.expected,
                     pr.comm_efficiency.expected),
        "optimistic": (pr.mfu.high, pr.decode_mfu.high, pr.mbu.high, pr.kv_read_efficiency.high, pr.comm_efficiency.high),
        "pessimistic": (pr.mfu.low, pr.decode_mfu.low, pr.mbu.low, pr.kv_read_efficiency.low, pr.comm_efficiency.low),
    }


def _times(w, peak, bw, link_bw, alpha, par: Parallelism, b, model, mfu, decode_mfu, mbu, kvbu, eff,
           overhead: StepOverhead):
    tp, layers = par.tp, model.num_layers
    mfu = np.where(w["decode"], decode_mfu, mfu)  # a step of one new token per sequence is a decode step
    # The GEMMs, attention and the routed experts run one after the other, each at its own roofline, the experts at
    # the no-overlap bound (module docstring): at decode attention streams the KV cache while a large batch's GEMMs
    # are compute-bound.
    t_ce = par.pp * w["experts_gpu"] / (peak * mfu)
    t_me = par.pp * (w["expert_bytes_gpu"] + w["expert_act_gpu"]) / (bw * mbu)
    t_ca = par.pp * w["attn_gpu"] * w["attn_cost"] / (peak * mfu)
    t_ma = par.pp * w["kv_gpu"] / (bw * kvbu)
    t_cd = par.pp * w["compute_flops_gpu"] / (peak * mfu) - t_ce - t_ca  # the stages run one after another
    t_md = par.pp * (w["weights_gpu"] - w["expert_bytes_gpu"] + w["act_gpu"]) / (bw * mbu)
    t_c, t_m = t_cd + t_ce + t_ca, t_md + t_me + t_ma
    if tp > 1:
        ring = 2.0 * (tp - 1) / tp * w["msg_bytes"] / (link_bw * eff) + 2.0 * (tp - 1) * alpha
        t_x = 2.0 * layers * ring
    else:
        t_x = np.zeros_like(t_c)
    a2a = 2.0 * model.num_moe_layers * spread_time(w["moe_bytes"], w["moe_group"], link_bw, eff, alpha)
    stage_bw = link_bw if par.gpus <= GPUS_PER_NODE else SCALE_OUT_BANDWIDTH_BYTES_PER_S
    t_x = t_x + a2a + (par.pp - 1) * (w["msg_bytes"] / (stage_bw * eff) + alpha)
    t_o = overhead.total(b)  # engine-loop CPU + per-request + (eager) kernel launches, step_overhead.py
    times = {"gemms": (t_cd, t_md), "attention": (t_ca, t_ma), **({"experts": (t_ce, t_me)} if model.is_moe else {})}
    parts = {name: (c, m, c + m if name in SERIAL_PARTS else np.maximum(c, m)) for name, (c, m) in times.items()}
    step = sum(seconds for _, _, seconds in parts.values()) + t_x + t_o
    return t_c, t_m, t_x, t_o, step, a2a, parts


def _replace(r: StepResult, **changes) -> StepResult:
    from dataclasses import replace

    return replace(r, **changes)


def _note(r: StepResult, model: ModelSpec, gpu: GPUSpec, tp: int, bound_idx: np.ndarray) -> str:
    bound = np.asarray(r.bound)
    if bound.ndim:
        counts = dict(zip(BOUNDS, np.bincount(bound_idx.ravel(), minlength=len(BOUNDS)).tolist(), strict=False))
        parts = ", ".join(f"{v:,} {k}-bound" for k, v in counts.items() if v)
        return f"{bound.size:,} configurations: {parts}."
    ai, ridge = float(r.arithmetic_intensity), r.ridge_point
    lead = {  # one explanation per bound
        "memory": f"Memory-bound: each step streams {fmt(r.bytes_per_gpu, 'B')} per GPU but does only "
                  f"{fmt(ai, digits=3)} FLOP per byte, below the {gpu.name} ridge point of {ridge:,.0f} FLOP/byte. "
                  "Bigger batches reuse the same weight reads, so throughput rises almost for free",
        "compute": f"Compute-bound: {fmt(ai, digits=3)} FLOP per byte is above the ridge point of {ridge:,.0f}; "
                   "more batch adds time in proportion. Faster math (FP8) or more GPUs help, bandwidth does not",
        "communication": f"Communication-bound: TP={tp} all-reduces take longer than the math and memory "
                         f"traffic; use fewer, larger GPUs, a faster link than "
                         f"{gpu.interconnect_bandwidth_bytes_per_s / 1e9:,.0f} GB/s, or pipeline/data parallelism",
        "overhead": "Overhead-bound: fixed per-step costs (engine-loop CPU, kernel launches, a MoE layer's fixed "
                    "expert-kernel time) dominate a step this small; larger batches amortize them, and CUDA graphs or "
                    "multi-step scheduling cut the CPU and launch parts",
    }[str(bound)]
    cross = float(r.crossover_batch)
    tail = (f"; decode turns compute-bound near batch {cross:,.0f} at this context"
            if r.crossover_reachable else "; at this context the KV reads grow as fast as the math, "
            "so it never turns compute-bound by batching")
    return lead + tail + "."


def _derivation(model, gpu, w, peak, bw, b, ctx, n, par: Parallelism, r, pr, weight_dtype) -> str:
    tp = par.tp
    if par.gpus == tp:
        split = f"÷ TP {tp} = {fmt(w['flops_gpu'], 'FLOP')} per GPU. "
    else:
        split = (f"({par.describe()}): non-expert ÷ TP {tp}, routed experts 2·(routed active)·T_g/(TP·DP) with "
                 f"T_g = DP·T = {fmt(w['tokens'] * par.dp, 'tokens')} × busiest-EP-rank imbalance "
                 f"{fmt(r.expert_imbalance, digits=4)} = {fmt(w['experts_gpu'], 'FLOP')}, all ÷ PP {par.pp} → "
                 f"{fmt(w['flops_gpu'], 'FLOP')} per GPU per stage. ")
    moe_comm = ""
    if w["moe_group"] > 1:
        what = ("EP dispatch + combine all-to-all of (T/TP)·k·h·B" if par.ep > 1
                else "DP all-gather + reduce-scatter of T_g·h·B")
        moe_comm = (f" + {model.num_moe_layers} MoE layers × 2 × {what} = {fmt(w['moe_bytes'], 'B')} per GPU over "
                    f"{w['moe_group']} GPUs (in-node share at NVLink, the rest at the 400 Gb/s NIC) = "
                    f"{fmt(r.all_to_all_time_s, 's')}")
    stages = f"PP {par.pp} × " if par.pp > 1 else ""
    prefill_dims, decode_dims = attention_head_dims(model)
    mla_dims = (f"(MLA: d_qk + d_v = {decode_dims:g} in decode, the absorbed latent form, {prefill_dims:g} in "
                "prefill) " if model.attention == "mla" else "")
    decode = np.asarray(w["decode"])
    mfu_label = (f"decode MFU {pr.decode_mfu.expected:g}" if decode.all() else f"MFU {pr.mfu.expected:g}"
                 if not decode.any() else f"MFU {pr.mfu.expected:g}, decode {pr.decode_mfu.expected:g}")
    return (
        f"T = batch · new tokens = {fmt(b)} · {fmt(n)} = {fmt(w['tokens'], 'tokens')}. "
        f"FLOPs = 2·(active − LM head)·T + 2·V·h·batch + attention 2·H·(d_qk+d_v)·T·ctx_eff "
        f"{mla_dims}"
        f"= {fmt(w['linear'])} + {fmt(w['attn'])} FLOP, {split}"
        f"Bytes per GPU = weights {fmt(w['weights_gpu'], 'B')} + KV {fmt(w['kv_gpu'], 'B')} + activations "
        f"{fmt(w['act_gpu'] + w['expert_act_gpu'], 'B')} = {fmt(w['bytes_gpu'], 'B')}. "
        f"Intensity = {fmt(r.arithmetic_intensity, 'FLOP/B')} "
        f"vs ridge {peak / 1e12:,.1f} TFLOP/s ({weight_dtype}) ÷ {bw / 1e12:,.2f} TB/s = {r.ridge_point:,.0f} FLOP/B. "
        f"t_compute = {stages}FLOPs/(peak·{mfu_label}) = {fmt(r.compute_time_s, 's')}; "
        f"t_memory = {stages}[(weights + activations)/(BW·MBU {pr.mbu.expected:g}) + KV/(BW·KV-read "
        f"{pr.kv_read_efficiency.expected:g})] = {fmt(r.memory_time_s, 's')}; "
        f"t_comm = 2·L·[2(N−1)/N·T·h·B/(BW_link·{pr.comm_efficiency.expected:g}) + 2(N−1)·α]{moe_comm}"
        + (f" + {par.pp - 1} stage sends of T·h·B" if par.pp > 1 else "") +
        f" = {fmt(r.communication_time_s, 's')}; overhead {fmt(r.overhead_time_s, 's')}. "
        + "step = max(t_compute, t_memory) of the GEMMs + max(t_compute, t_memory) of attention (its "
        f"{fmt(w['attn_gpu'], 'FLOP')} and the KV reads) "
        + (f"+ (t_compute + t_memory) of the routed experts ({fmt(w['experts_gpu'], 'FLOP')}, "
           f"{fmt(w['expert_bytes_gpu'], 'B')} of weights + {fmt(w['expert_act_gpu'], 'B')} through their "
           "elementwise kernels per GPU; the no-overlap bound) " if model.is_moe else "")
        + "(each part at its own roofline, one after the other) + t_comm + overhead = "
        + f"{fmt(r.step_time_s, 's')} "
        f"(range {fmt(r.step_time_s_range[0], 's')} – {fmt(r.step_time_s_range[1], 's')}); "
        f"throughput = T/step = {fmt(r.tokens_per_s, 'tokens/s')}"
        + (f" per DP rank, × {par.dp} ranks = {fmt(r.tokens_per_s * par.dp, 'tokens/s')} for the deployment"
           if par.dp > 1 else "") + "."
    )
