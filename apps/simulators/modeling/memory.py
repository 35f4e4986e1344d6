"""Will it fit: weights + KV cache + activations + runtime overhead vs GPU memory.

vLLM's start-up memory accounting (worker `determine_available_memory` /
`gpu_memory_utilization`): the engine may use ceil(memory_bytes × gpu_memory_utilization)
(`request_memory` in vllm/v1/worker/utils.py), where memory_bytes is the total the driver
reports to CUDA (torch.cuda.mem_get_info), not the datasheet's rounded "80 GB".
It loads the weights, runs one profiling forward pass with `max_num_batched_tokens`
dummy tokens to measure the peak activation memory, adds non-torch memory (CUDA
context ~0.3–0.5 GB, NCCL/cuBLAS workspaces) and later CUDA-graph buffers
(~0.2–1 GB), and hands whatever is left to the KV cache. We model:

* weights: linear layers at `weight_dtype`; the embedding table, a learned position table
  and the LM head stay 16-bit (what FP8/INT4/MXFP4 checkpoints do); all sharded 1/TP.
* activation peak: max_num_batched_tokens · (4·h + (q+2kv width)/TP + u·F_act/TP) · 2 B
  for one layer's live tensors (u = 2 up-side outputs for a gated MLP, gate and up; 1 for a
  plain MLP's fc1) plus fp32 logits for `max_num_seqs` rows (V/TP each).
* runtime overhead: `runtime_overhead_bytes` (default 1.5e9: CUDA context + graphs + NCCL).
* parallelism (parallel.py): non-expert weights ÷ TP, routed experts ÷ (TP · DP), both ÷ PP (layers per stage);
  KV ÷ PP per stage with each DP rank holding its own `batch` sequences (MLA's latent is not split by TP, so DP
  multiplies the KV room of a DeepSeek-style deployment where TP would replicate it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._util import MAX_BATCH, fmt, fraction, out, positive
from .errors import ModelInputError
from .kv import kv_bytes_per_sequence
from .parallel import Parallelism, parallelism
from .specs import DTYPE_BYTES as DTYPE_BYTES_OF
from .specs import GPUSpec, ModelSpec, count_params, dtype_bytes
from .vllm_defaults import GPU_MEMORY_UTILIZATION

DEFAULT_RUNTIME_OVERHEAD_BYTES = 1.5e9
TP_CHOICES = (1, 2, 4, 8)


def weight_bytes(model: ModelSpec, weight_dtype: str = "bf16") -> float:
    """Bytes of all weights (whole model, unsharded). MXFP4 on a MoE model covers the routed experts only, the rest
    staying BF16, as in gpt-oss's checkpoint (its model card: "MXFP4 ... of the MoE weights")."""
    b = dtype_bytes(weight_dtype, "weight_dtype")
    p = count_params(model)
    embed_and_head = p.embedding + p.position_embedding + p.lm_head
    experts = expert_weight_bytes(model, weight_dtype)
    if _experts_only(model, weight_dtype):
        return (p.total - p.routed_experts) * 2.0 + experts
    return (p.total - embed_and_head) * b + embed_and_head * min(2.0, max(b, 2.0))


def _experts_only(model: ModelSpec, weight_dtype: str) -> bool:
    return model.is_moe and weight_dtype.lower() == "mxfp4"


def expert_weight_bytes(model: ModelSpec, weight_dtype: str = "bf16") -> float:
    """Bytes of the routed experts (whole model, unsharded); 0 for a dense model."""
    return count_params(model).routed_experts * dtype_bytes(weight_dtype, "weight_dtype")


def weights_per_gpu(model: ModelSpec, weight_dtype: str, par: Parallelism) -> float:
    """Weight bytes one GPU holds: (non-expert ÷ TP + routed experts ÷ (TP · DP)) ÷ PP."""
    total, experts = weight_bytes(model, weight_dtype), expert_weight_bytes(model, weight_dtype)
    return ((total - experts) / par.tp + experts / par.expert_shards) / par.pp


def activation_peak_bytes(
    model: ModelSpec, *, max_num_batched_tokens=8192, max_num_seqs=256, tp: int = 1
) -> float | np.ndarray:
    """Peak activation memory of vLLM's profiling pass on one GPU (estimate)."""
    tokens = positive("max_num_batched_tokens", max_num_batched_tokens, 10_000_000)
    seqs = positive("max_num_seqs", max_num_seqs, MAX_BATCH)
    m = model
    f_act = (m.experts_per_token or 1) * (m.moe_intermediate_size or 0) if m.is_moe else m.intermediate_size
    qkv = (m.num_attention_heads + 2 * m.num_kv_heads) * m.head_dim
    per_token = 4 * m.hidden_size + (qkv + (m.mlp_matrices - 1) * f_act) / tp
    return out(tokens * per_token * 2.0 + seqs * m.vocab_size / tp * 4.0)


@dataclass(frozen=True)
class FitResult:
    fits: bool | np.ndarray
    budget_bytes: float
    weights_bytes_per_gpu: float
    kv_bytes_per_gpu: float | np.ndarray
    activation_bytes_per_gpu: float | np.ndarray
    runtime_overhead_bytes: float
    total_bytes_per_gpu: float | np.ndarray
    headroom_bytes: float | np.ndarray
    kv_budget_bytes_per_gpu: float | np.ndarray
    max_concurrent_sequences: float | np.ndarray   # per DP rank
    tp: int
    derivation: str
    parallel: Parallelism = field(default_factory=Parallelism)


def fit(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    context_tokens,
    batch=1,
    tp: int = 1,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION,
    max_num_batched_tokens=8192,
    max_num_seqs=256,
    runtime_overhead_bytes: float = DEFAULT_RUNTIME_OVERHEAD_BYTES,
    pp: int = 1,
    dp: int = 1,
    ep: int = 1,
) -> FitResult:
    """Does `batch` sequences (per DP rank) of `context_tokens` fit on each GPU of a TP · PP · DP deployment?
    (vectorized over context/batch)"""
    _check_tp(tp)
    par = parallelism(model, tp=tp, pp=pp, dp=dp, ep=ep)
    gpu.peak_flops(weight_dtype)  # refuses fp4 on a GPU without FP4 tensor cores
    util = float(fraction("gpu_memory_utilization", gpu_memory_utilization))
    n = positive("batch", batch, MAX_BATCH)
    overhead = float(np.asarray(positive("runtime_overhead_bytes", runtime_overhead_bytes + 1) - 1))
    budget = float(math.ceil(gpu.memory_bytes * util))
    weights = weights_per_gpu(model, weight_dtype, par)
    act = np.asarray(activation_peak_bytes(model, max_num_batched_tokens=max_num_batched_tokens,
                                           max_num_seqs=max_num_seqs, tp=tp))
    per_seq = np.asarray(kv_bytes_per_sequence(model, context_tokens, kv_dtype, tp)) / par.pp
    kv = per_seq * n
    fixed = weights + act + overhead
    total = fixed + kv
    kv_budget = np.maximum(budget - fixed, 0.0)
    max_seqs = np.floor(kv_budget / per_seq)
    derivation = (
        f"budget = ceil({fmt(gpu.memory_bytes, 'B')} (total as CUDA reports it) × {util:g}) = {fmt(budget, 'B')} per GPU; "
        + _weights_text(model, weight_dtype, par, weights) +
        f"activation peak for {fmt(max_num_batched_tokens)} batched tokens = {fmt(act, 'B')}; "
        f"runtime overhead {fmt(overhead, 'B')}; KV {fmt(per_seq, 'B')}/sequence × {fmt(n)} = {fmt(kv, 'B')}; "
        f"total {fmt(total, 'B')} → fits = total ≤ budget; KV room {fmt(kv_budget, 'B')} → "
        f"max {fmt(max_seqs)} sequences at this context"
    )
    return FitResult(
        fits=np.asarray(total <= budget) if np.ndim(total) else bool(total <= budget),
        budget_bytes=budget,
        weights_bytes_per_gpu=weights,
        kv_bytes_per_gpu=out(kv),
        activation_bytes_per_gpu=out(act),
        runtime_overhead_bytes=overhead,
        total_bytes_per_gpu=out(total),
        headroom_bytes=out(budget - total),
        kv_budget_bytes_per_gpu=out(kv_budget),
        max_concurrent_sequences=out(max_seqs),
        tp=int(tp),
        derivation=derivation,
        parallel=par,
    )


def _weights_text(model: ModelSpec, weight_dtype: str, par: Parallelism, per_gpu: float) -> str:
    total = weight_bytes(model, weight_dtype)
    if par.gpus == par.tp and par.ep == 1:
        return f"weights {fmt(total, 'B')} ({weight_dtype}) / TP {par.tp} = {fmt(per_gpu, 'B')}; "
    experts = expert_weight_bytes(model, weight_dtype)
    how = f"EP {par.ep}: {(model.num_experts or 0) // par.ep} whole experts per GPU" if par.ep > 1 else "slices"
    return (f"weights ({weight_dtype}, {par.describe()}): non-expert {fmt(total - experts, 'B')} / TP {par.tp} + routed "
            f"experts {fmt(experts, 'B')} / (TP·DP {par.expert_shards}, {how}), ÷ PP {par.pp} = {fmt(per_gpu, 'B')} "
            f"per GPU; ")


def tp_is_valid(model: ModelSpec, tp: int) -> bool:
    """vLLM's rule: attention heads divide by TP; KV heads divide by TP or TP by KV heads."""
    if model.num_attention_heads % tp:
        return False
    if model.attention == "mla":
        return True
    return model.num_kv_heads % tp == 0 or tp % model.num_kv_heads == 0


@dataclass(frozen=True)
class MinTPResult:
    tp: int | None
    fits: bool
    tried: list[dict]
    derivation: str


def min_tp(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    context_tokens: float,
    batch: float = 1,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION,
    max_num_batched_tokens: float = 8192,
    runtime_overhead_bytes: float = DEFAULT_RUNTIME_OVERHEAD_BYTES,
    pp: int = 1,
    dp: int = 1,
    ep: int = 1,
) -> MinTPResult:
    """Smallest TP in 1, 2, 4, 8 that divides the heads and fits `batch` sequences, keeping PP and DP (and expert
    parallelism on or off: with it, EP = TP · DP, which must divide the experts)."""
    tried: list[dict] = []
    for tp in TP_CHOICES:
        ep_tp = tp * dp if ep > 1 else 1
        if not tp_is_valid(model, tp) or (model.num_experts or 1) % ep_tp:
            tried.append({"tp": tp, "valid": False, "fits": False, "headroom_bytes": 0.0})
            continue
        r = fit(model, gpu, context_tokens=context_tokens, batch=batch, tp=tp, weight_dtype=weight_dtype,
                kv_dtype=kv_dtype, gpu_memory_utilization=gpu_memory_utilization,
                max_num_batched_tokens=max_num_batched_tokens, runtime_overhead_bytes=runtime_overhead_bytes,
                pp=pp, dp=dp, ep=ep_tp)
        tried.append({"tp": tp, "valid": True, "fits": bool(r.fits), "headroom_bytes": float(r.headroom_bytes)})
        if r.fits:
            return MinTPResult(tp, True, tried, f"TP={tp}: {r.derivation}")
    return MinTPResult(None, False, tried, f"{model.name} does not fit on up to 8 × {gpu.name} "
                       f"at {context_tokens:,.0f} tokens × {batch:g} sequences; try a smaller dtype, "
                       "a shorter context or pipeline parallelism across nodes")


def _check_tp(tp) -> None:
    if int(tp) != tp or tp < 1 or tp > 1024:
        raise ModelInputError("tp", "must be a whole number between 1 and 1024")


# Smaller weight dtypes offered as a fix, most bytes first (the least lossy that fits wins); fp4 only on a GPU with
# FP4 tensor cores. fp16 / int8 / mxfp4 weigh the same as or about what bf16 / fp8 / int4 do: no new fix.
FIX_WEIGHT_DTYPES = ("bf16", "fp8", "fp4", "int4")


@dataclass(frozen=True)
class Feasibility:
    """Can this setup run at all: memory fits at the requested TP, and vLLM accepts that TP for the model."""

    fits: bool
    tp_valid: bool
    feasible: bool
    reason: str
    min_tensor_parallel: int | None  # smallest TP in 1, 2, 4, 8 that divides the heads and fits
    fix_weight_dtype: str | None     # at the requested TP, the largest smaller weight dtype that fits
    fix: str                         # the smallest fix in words ("" when feasible)
    budget_bytes: float
    total_bytes_per_gpu: float
    weights_bytes_per_gpu: float
    derivation: str


def feasibility(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    context_tokens: float,
    batch: float = 1,
    tp: int = 1,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION,
    max_num_batched_tokens: float = 8192,
    pp: int = 1,
    dp: int = 1,
    ep: int = 1,
) -> Feasibility:
    """memory.fit for `batch` sequences of `context_tokens` at `tp`, the TP rule, and the smallest fix if either fails:
    the minimum TP (min_tp) and, keeping the TP, the first of FIX_WEIGHT_DTYPES lighter than `weight_dtype` that fits."""
    common: dict[str, Any] = dict(context_tokens=context_tokens, batch=batch, kv_dtype=kv_dtype,
                                  gpu_memory_utilization=gpu_memory_utilization,
                                  max_num_batched_tokens=max_num_batched_tokens, pp=pp, dp=dp)
    r = fit(model, gpu, tp=tp, weight_dtype=weight_dtype, ep=ep, **common)
    fits, valid = bool(r.fits), tp_is_valid(model, tp)
    smallest = min_tp(model, gpu, weight_dtype=weight_dtype, ep=ep, **common)
    dtype_fix = None
    if not fits:
        own = dtype_bytes(weight_dtype, "weight_dtype")
        for candidate in FIX_WEIGHT_DTYPES:
            if candidate == "fp4" and not gpu.fp4_dense_flops:
                continue
            if DTYPE_BYTES_OF[candidate] < own and bool(
                    fit(model, gpu, tp=tp, weight_dtype=candidate, ep=ep, **common).fits):
                dtype_fix = candidate
                break
    budget, total, weights = r.budget_bytes, float(r.total_bytes_per_gpu), r.weights_bytes_per_gpu
    util = float(gpu_memory_utilization)
    at = f"TP {tp}" if r.parallel.gpus == tp else r.parallel.describe()
    if not fits:
        what = (f"the weights alone ({fmt(weights, 'B')} per GPU at {at}, {weight_dtype}) exceed"
                if weights > budget else
                f"weights {fmt(weights, 'B')} + KV {fmt(r.kv_bytes_per_gpu, 'B')} + activations "
                f"{fmt(r.activation_bytes_per_gpu, 'B')} + runtime {fmt(r.runtime_overhead_bytes, 'B')} = "
                f"{fmt(total, 'B')} per GPU at {at} exceed")
        reason = (f"Does not fit: {what} the budget {fmt(gpu.memory_bytes, 'B')} × {util:g} = {fmt(budget, 'B')} "
                  f"of each {gpu.name}.")
        if weights < gpu.memory_bytes:
            reason += (f" The weights do fit in the {fmt(gpu.memory_bytes, 'B')} the GPU reports, with "
                       f"{fmt(gpu.memory_bytes - weights, 'B')} left: the problem is headroom (CUDA context, "
                       "activations, CUDA graphs, KV cache), not capacity.")
    elif not valid:
        reason = (f"tensor_parallel={tp} does not divide {model.name}'s {model.num_attention_heads} attention heads / "
                  f"{model.num_kv_heads} KV heads; vLLM refuses it.")
    else:
        reason = (f"Fits: {fmt(total, 'B')} of the {fmt(budget, 'B')} budget per GPU at {at}, room for "
                  f"{fmt(r.max_concurrent_sequences)} sequences of this length.")
    fixes = []
    if not (fits and valid):
        if smallest.tp is not None:
            gpus = "" if smallest.tp * pp * dp == smallest.tp else f"; {smallest.tp * pp * dp} GPUs in all"
            fixes.append(f"tensor_parallel {smallest.tp} (the smallest of {', '.join(map(str, TP_CHOICES))} that "
                         f"divides the heads and fits{gpus})")
        if dtype_fix:
            fixes.append(f"weight_dtype {dtype_fix} at TP {tp}")
        if not fixes:
            fixes.append("nothing up to TP 8 at this dtype fits: a shorter context, fewer sequences, a smaller "
                         "weight dtype with more GPUs, or pipeline parallelism across nodes")
    fix = ("Smallest fix: " + "; or ".join(fixes) + ".") if fixes else ""
    return Feasibility(
        fits=fits, tp_valid=valid, feasible=fits and valid, reason=reason, min_tensor_parallel=smallest.tp,
        fix_weight_dtype=dtype_fix, fix=fix, budget_bytes=budget, total_bytes_per_gpu=total,
        weights_bytes_per_gpu=weights, derivation=r.derivation,
    )
