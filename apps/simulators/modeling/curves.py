"""Throughput–latency curve: decode step time vs batch size until the KV cache is full.

For each batch b (powers of two, plus the memory limit itself) the decode step at the
mean context (prompt + output/2) gives TPOT = step time and throughput = b / step.
The largest batch comes from memory.fit (KV budget ÷ KV per sequence at the final
context prompt + output). Throughput rises almost linearly while the step is
memory-bound (weights are read once per step whatever b is) and flattens once it is
compute-bound or the KV reads dominate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._util import MAX_CONTEXT_TOKENS, fmt, positive
from .memory import fit
from .roofline import EfficiencyPriors, step_time
from .specs import GPUSpec, ModelSpec
from .vllm_defaults import GPU_MEMORY_UTILIZATION


@dataclass(frozen=True)
class CurveResult:
    batch: np.ndarray
    tpot_s: np.ndarray
    tpot_s_range: list
    tokens_per_s: np.ndarray
    tokens_per_s_range: list
    tokens_per_s_per_gpu: np.ndarray
    bound: np.ndarray
    max_batch: int
    tp: int
    note: str
    derivation: str


def throughput_latency_curve(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    prompt_tokens: float,
    output_tokens: float,
    tp: int = 1,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION,
    max_num_seqs: int = 1024,
    priors: EfficiencyPriors | None = None,
) -> CurveResult:
    """Decode TPOT and throughput for batch sizes 1, 2, 4, … up to what memory allows."""
    prompt = float(positive("prompt_tokens", prompt_tokens, MAX_CONTEXT_TOKENS))
    output = float(positive("output_tokens", output_tokens, MAX_CONTEXT_TOKENS))
    cap = int(positive("max_num_seqs", max_num_seqs, 1_000_000))
    mem = fit(model, gpu, context_tokens=prompt + output, tp=tp, weight_dtype=weight_dtype,
              kv_dtype=kv_dtype, gpu_memory_utilization=gpu_memory_utilization)
    max_batch = int(min(float(mem.max_concurrent_sequences), cap))
    if max_batch < 1:
        empty = np.zeros(0)
        return CurveResult(empty, empty, [empty, empty], empty, [empty, empty], empty, np.zeros(0, dtype=str),
                           0, tp, "Not even one sequence fits: the weights leave no room for its KV cache.",
                           mem.derivation)
    batches = np.unique(np.append(2 ** np.arange(int(np.log2(max_batch)) + 1), max_batch)).astype(float)
    r = step_time(model, gpu, batch=batches, context_tokens=prompt + output / 2.0, new_tokens=1, tp=tp,
                  weight_dtype=weight_dtype, kv_dtype=kv_dtype, priors=priors)
    tps = np.atleast_1d(r.tokens_per_s)
    gain = tps[-1] / tps[0]
    note = (f"From batch 1 to {max_batch:,} (memory limit at {prompt + output:,.0f} tokens per sequence), "
            f"throughput grows {gain:,.1f}× while TPOT grows "
            f"{float(np.atleast_1d(r.step_time_s)[-1] / np.atleast_1d(r.step_time_s)[0]):,.1f}×.")
    derivation = (f"max batch = floor(KV budget / KV per sequence) = {fmt(mem.max_concurrent_sequences)} "
                  f"(capped at max_num_seqs {cap:,}); for each batch b: TPOT = decode step at context "
                  f"{prompt:,.0f} + {output:,.0f}/2, throughput = b / TPOT. {r.derivation}")
    return CurveResult(
        batch=batches,
        tpot_s=np.atleast_1d(r.step_time_s),
        tpot_s_range=[np.atleast_1d(x) for x in r.step_time_s_range],
        tokens_per_s=tps,
        tokens_per_s_range=[np.atleast_1d(x) for x in r.tokens_per_s_range],
        tokens_per_s_per_gpu=tps / tp,
        bound=np.atleast_1d(r.bound),
        max_batch=max_batch,
        tp=tp,
        note=note,
        derivation=derivation,
    )
