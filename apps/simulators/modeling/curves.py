"""Throughput–latency curve: what a replica serves vs the time between a client's tokens, batch 1 until the KV cache
is full.

For each batch b (powers of two, plus the memory limit itself) the decode step t_d at the mean context
(prompt + output/2) and the prefill cost per token c_p (one prefill step of the 8,192-token budget) give the replica's
steady state (steady_state.py, the formula capacity.py uses too): the engine interleaves each request's prefill with
the decode steps, so
  output tokens/s = OSL · b / (OSL · t_d + b · ISL · c_p)
  TPOT            = t_d + b · ISL · c_p / OSL   (the decode step plus the prefill time interleaved per output token,
                    what a client measures between tokens under chunked prefill) = b / (output tokens/s)
and the pure decode step t_d is kept as its own field. The largest batch comes from memory.fit (KV budget ÷ KV per
sequence at the final context prompt + output). Throughput rises almost linearly while the decode step is
memory-bound (weights are read once per step whatever b is) and flattens once it is compute-bound, the KV reads
dominate, or the prefill work (which grows with b) takes most of the replica's time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._util import MAX_CONTEXT_TOKENS, fmt, positive
from .memory import fit
from .roofline import EfficiencyPriors, step_time
from .specs import GPUSpec, ModelSpec
from .steady_state import prefill_cost_per_token, prefill_prompts, prefill_step, steady_state
from .vllm_defaults import GPU_MEMORY_UTILIZATION


@dataclass(frozen=True)
class CurveResult:
    batch: np.ndarray
    tpot_s: np.ndarray                # decode step + interleaved prefill per output token (steady_state)
    tpot_s_range: list
    tokens_per_s: np.ndarray          # output tokens/s, prefill work included
    tokens_per_s_range: list
    tokens_per_s_per_gpu: np.ndarray
    bound: np.ndarray                 # of the decode step
    max_batch: int
    tp: int
    note: str
    derivation: str
    decode_step_s: np.ndarray = field(default_factory=lambda: np.zeros(0))  # t_d, the pure decode step
    decode_step_s_range: list = field(default_factory=lambda: [np.zeros(0), np.zeros(0)])
    prefill_s_per_token: float = 0.0  # c_p, expected


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
    cuda_graphs: bool = True,
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
    common: dict[str, Any] = dict(tp=tp, weight_dtype=weight_dtype, kv_dtype=kv_dtype, priors=priors,
                                  cuda_graphs=cuda_graphs)
    r = step_time(model, gpu, batch=batches, context_tokens=prompt + output / 2.0, new_tokens=1, **common)
    pf = prefill_step(model, gpu, prompt, **common)
    c_p, c_fast, c_slow = prefill_cost_per_token(pf)
    decode = np.atleast_1d(r.step_time_s)
    fast, slow = (np.atleast_1d(x) for x in r.step_time_s_range)
    ss = steady_state(decode, c_p, batches, prompt, output)
    best = steady_state(fast, c_fast, batches, prompt, output)
    worst = steady_state(slow, c_slow, batches, prompt, output)
    tps, tpot = np.atleast_1d(ss.output_tokens_per_s), np.atleast_1d(ss.tpot_s)
    gain = tps[-1] / tps[0]
    prefill_share = prompt * c_p / np.atleast_1d(ss.service_s)
    note = (f"From batch 1 to {max_batch:,} (memory limit at {prompt + output:,.0f} tokens per sequence), "
            f"throughput grows {gain:,.1f}× while TPOT grows {float(tpot[-1] / tpot[0]):,.1f}×; at the largest batch "
            f"prefill takes {float(prefill_share[-1]):.0%} of the replica's time and adds "
            f"{float(tpot[-1] - decode[-1]) * 1e3:,.2f} ms to each {float(decode[-1]) * 1e3:,.2f} ms decode step.")
    derivation = (
        f"max batch = floor(KV budget / KV per sequence) = {fmt(mem.max_concurrent_sequences)} "
        f"(capped at max_num_seqs {cap:,}). Decode step t_d(b) at context {prompt:,.0f} + {output:,.0f}/2; prefill "
        f"cost per token c_p = one prefill step of {fmt(prefill_prompts(prompt) * prompt, 'tokens')} "
        f"({fmt(pf.step_time_s, 's')}) ÷ its tokens = {fmt(c_p, 's')}. Steady state (prefill interleaved with "
        f"decode): output tokens/s = OSL·b/(OSL·t_d + b·ISL·c_p), TPOT = t_d + b·ISL·c_p/OSL. At b = "
        f"{batches[-1]:,.0f}: t_d = {fmt(decode[-1], 's')}, TPOT = {fmt(decode[-1], 's')} + "
        f"{batches[-1]:,.0f}·{prompt:,.0f}·{fmt(c_p, 's')}/{output:,.0f} = {fmt(tpot[-1], 's')}, throughput = "
        f"{output:,.0f}·{batches[-1]:,.0f}/({output:,.0f}·{fmt(decode[-1], 's')} + {batches[-1]:,.0f}·"
        f"{prompt:,.0f}·{fmt(c_p, 's')}) = {fmt(tps[-1], 'tokens/s')}. Decode steps: {r.derivation}"
    )
    return CurveResult(
        batch=batches,
        tpot_s=tpot,
        tpot_s_range=[np.atleast_1d(best.tpot_s), np.atleast_1d(worst.tpot_s)],
        tokens_per_s=tps,
        tokens_per_s_range=[np.atleast_1d(worst.output_tokens_per_s), np.atleast_1d(best.output_tokens_per_s)],
        tokens_per_s_per_gpu=tps / tp,
        bound=np.atleast_1d(r.bound),
        max_batch=max_batch,
        tp=tp,
        note=note,
        derivation=derivation,
        decode_step_s=decode,
        decode_step_s_range=[fast, slow],
        prefill_s_per_token=c_p,
    )
