"""Analytic simulator calculators: call the modeling package with resolved specs (apps.simulators.catalog) and return
JSON-safe dicts, one per endpoint; the response shapes are documented in apps.simulators.api.outputs.

Every quantity is in SI base units with the unit in its name (bytes, bytes_per_s, flops, seconds). Times,
throughputs, GPU counts and costs come as the expected value plus `<name>_range: [low, high]`. A
ModelInputError from the modeling package becomes an InvalidInput naming the API field; no response holds NaN or inf.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np

from apps.core.exceptions import InvalidInput
from apps.core.models import Status
from apps.core.validation import clean_or_400
from apps.simulators import modeling as m
from apps.simulators.modeling.roofline import SERIAL_PARTS
from apps.simulators.modeling.vllm_defaults import GPU_MEMORY_UTILIZATION
from apps.simulators.models import GPU, ModelConfig
from apps.simulators.tokenizer import Tokenized, approximate_tokenize, client_tokens
from apps.simulators.validation import gpu_warnings, model_warnings

# Modeling argument names → API field names.
FIELD_NAMES = {
    "tp": "tensor_parallel", "batch": "batch_size", "alpha": "acceptance_rate", "gamma": "draft_tokens",
    "max_gamma": "max_draft_tokens", "sequence_tokens": "sequence_lengths", "price_per_gpu_hour": "price_per_gpu_hour_usd",
    "new_tokens": "prompt_tokens", "kv_bytes_per_token": "model",
}


# ---------------------------------------------------------------- resolution and conversion


@contextmanager
def model_errors(extra: dict[str, str] | None = None):
    """Turn ModelInputError into InvalidInput on the API's name for the field."""
    try:
        yield
    except m.ModelInputError as exc:
        names = {**FIELD_NAMES, **(extra or {})}
        raise InvalidInput(exc.message, field=names.get(exc.field, exc.field))


def jsonable(value: Any) -> Any:
    """Dataclasses, numpy scalars and arrays → plain JSON types; NaN and ±inf → None."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if all(type(v) is int for v in value):  # token ids: nothing to convert
            return list(value)
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            value = np.where(np.isfinite(value), value, np.nan)
            return [None if v != v else v for v in value.tolist()]
        return value.tolist()
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def context_warnings(model: m.ModelSpec, *contexts: float) -> list[str]:
    longest = max(contexts)
    if longest > model.max_position_embeddings:
        return [f"context of {longest:,.0f} tokens exceeds {model.name}'s max_position_embeddings "
                f"({model.max_position_embeddings:,}); the model was not trained for it"]
    return []


def tp_warnings(model: m.ModelSpec, tp: int) -> list[str]:
    if m.tp_is_valid(model, tp):
        return []
    return [f"tensor_parallel={tp} does not divide {model.name}'s {model.num_attention_heads} attention heads "
            f"/ {model.num_kv_heads} KV heads; vLLM would refuse it"]


def moe_warnings(model: m.ModelSpec) -> list[str]:
    """The efficiency priors are fitted on dense models' measurements. Measured MoE serving (benchmarks/calibration.py,
    benchmarks/README.md) ran slower than they predict for two of three models, so an MoE answer says so."""
    if not model.is_moe:
        return []
    return [f"{model.name} is a mixture-of-experts model, and the efficiency priors are fitted on dense models. "
            "Published MoE measurements ran slower than they predict (median of each setup's runs): DeepSeek-R1 on "
            "8 × H200 by about 2.9-3.1x on SGLang 0.4 and vLLM 0.7 and by 1.5x on vLLM 0.11, on TensorRT-LLM with "
            "data-parallel attention and EP by 1.7x on 8 × H200 and 1.1x on 4 × B200, gpt-oss-120b on TensorRT-LLM "
            "by 1.2-2.2x and on SGLang at batch 1 (H100, B200) by 1.2-1.4x; Mixtral 8x7B on vLLM and TensorRT-LLM "
            "came within 0.7-1.4x (median 1.0x). Treat these "
            "times as optimistic."]


def model_summary(model: m.ModelSpec) -> dict:
    return {"slug": model.slug, "name": model.name, "attention": model.attention,
            "max_position_embeddings": model.max_position_embeddings, "hidden_size": model.hidden_size}


def gpu_summary(gpu: m.GPUSpec) -> dict:
    return {"slug": gpu.slug, "name": gpu.name, "memory_bytes": gpu.memory_bytes,
            "marketing_memory_bytes": gpu.marketing_memory_bytes,
            "hbm_bandwidth_bytes_per_s": gpu.hbm_bandwidth_bytes_per_s,
            "interconnect_bandwidth_bytes_per_s": gpu.interconnect_bandwidth_bytes_per_s,
            "price_per_hour_usd": gpu.price_per_hour_usd}


def run(fn: Callable[..., dict], extra_names: dict[str, str] | None = None, **kwargs) -> dict:
    with model_errors(extra_names):
        return jsonable(fn(**kwargs))


# ---------------------------------------------------------------- memory


def kv_cache_calculate(*, model: m.ModelSpec, kv_dtype: str, context_tokens: int, batch_size: int,
                       tensor_parallel: int) -> dict:
    r = m.kv_cache(model, context_tokens=context_tokens, batch=batch_size, kv_dtype=kv_dtype, tp=tensor_parallel)
    per_seq = float(m.kv_bytes_per_sequence(model, context_tokens, kv_dtype, 1))
    return {
        "model": model_summary(model),
        "bytes_per_token": r.bytes_per_token,
        "bytes_per_token_per_gpu": r.bytes_per_token_per_gpu,
        "bytes_per_sequence": per_seq,
        "bytes_per_sequence_per_gpu": r.bytes_per_sequence_per_gpu,
        "total_bytes": per_seq * batch_size,
        "per_gpu_bytes": r.total_bytes_per_gpu,
        "all_gpus_bytes": r.total_bytes_all_gpus,
        "heads_per_gpu": r.heads_per_gpu,
        "sharded_by_tp": r.sharded_by_tp,
        "sliding_window_layers": model.num_sliding_layers,
        "derivation": r.derivation,
        "warnings": context_warnings(model, context_tokens) + tp_warnings(model, tensor_parallel),
    }


def parallel_fields(par: m.Parallelism) -> dict:
    return {"tensor_parallel": par.tp, "pipeline_parallel": par.pp, "data_parallel": par.dp,
            "expert_parallel": par.ep, "gpus": par.gpus}


def fit_calculate(*, model: m.ModelSpec, gpu: m.GPUSpec, weight_dtype: str, kv_dtype: str, context_tokens: int,
                  batch_size: int, tensor_parallel: int, gpu_memory_utilization: float,
                  max_num_batched_tokens: int, pipeline_parallel: int = 1, data_parallel: int = 1,
                  expert_parallel: int = 1) -> dict:
    common = dict(context_tokens=context_tokens, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
                  gpu_memory_utilization=gpu_memory_utilization, max_num_batched_tokens=max_num_batched_tokens,
                  pp=pipeline_parallel, dp=data_parallel)
    r = m.fit(model, gpu, batch=batch_size, tp=tensor_parallel, ep=expert_parallel, **common)
    smallest = m.min_tp(model, gpu, batch=batch_size, ep=expert_parallel, **common)
    free = max(gpu.memory_bytes - float(r.total_bytes_per_gpu), 0.0)
    return {
        "model": model_summary(model), "gpu": gpu_summary(gpu),
        "fits": bool(r.fits),
        "memory_bytes": gpu.memory_bytes,
        "budget_bytes": r.budget_bytes,
        "per_gpu_bytes": {
            "weights": r.weights_bytes_per_gpu, "kv_cache": r.kv_bytes_per_gpu,
            "activations": r.activation_bytes_per_gpu, "runtime_overhead": r.runtime_overhead_bytes,
            "free": free,
        },
        "total_bytes_per_gpu": r.total_bytes_per_gpu,
        "headroom_bytes": r.headroom_bytes,
        "kv_budget_bytes_per_gpu": r.kv_budget_bytes_per_gpu,
        "max_concurrent_sequences": r.max_concurrent_sequences,
        "max_concurrent_sequences_all_ranks": r.max_concurrent_sequences * data_parallel,
        **parallel_fields(r.parallel),
        "min_tensor_parallel": smallest.tp,
        "min_tensor_parallel_tried": smallest.tried,
        "weight_bytes_total": m.weight_bytes(model, weight_dtype),
        "derivation": r.derivation,
        "min_tensor_parallel_derivation": smallest.derivation,
        "warnings": context_warnings(model, context_tokens) + tp_warnings(model, tensor_parallel),
    }


# ---------------------------------------------------------------- time


def feasibility_fields(f: m.Feasibility) -> dict:
    """The verdict every timing endpoint carries (documented once in api/outputs.py: FEASIBILITY)."""
    return {"fits": f.fits, "feasible": f.feasible, "reason": f.reason, "min_tensor_parallel": f.min_tensor_parallel,
            "fix_weight_dtype": f.fix_weight_dtype, "fix": f.fix}


def _infeasible_note(f: m.Feasibility, note: str) -> str:
    if f.feasible:
        return note
    return f"{f.reason} {f.fix} The figures below are what it would take if it did run. {note}"


def _step(model, gpu, *, phase, batch_size, context_tokens, prompt_tokens, tensor_parallel, weight_dtype, kv_dtype,
          cuda_graphs: bool = True, **parallel):
    new = (prompt_tokens or context_tokens) if phase == "prefill" else 1
    return m.step_time(model, gpu, batch=batch_size, context_tokens=0 if phase == "prefill" else context_tokens,
                       new_tokens=new, tp=tensor_parallel, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
                       cuda_graphs=cuda_graphs, **parallel)


def step_time_calculate(*, model: m.ModelSpec, gpu: m.GPUSpec, phase: str, batch_size: int, context_tokens: int,
                        prompt_tokens: int | None, tensor_parallel: int, weight_dtype: str, kv_dtype: str,
                        gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION, pipeline_parallel: int = 1,
                        data_parallel: int = 1, expert_parallel: int = 1, expert_routing_skew: float = 0.0,
                        cuda_graphs: bool = True) -> dict:
    layout = dict(pp=pipeline_parallel, dp=data_parallel, ep=expert_parallel)
    args = dict(batch_size=batch_size, context_tokens=context_tokens, prompt_tokens=prompt_tokens,
                tensor_parallel=tensor_parallel, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
                expert_routing_skew=expert_routing_skew, cuda_graphs=cuda_graphs, **layout)
    r = _step(model, gpu, phase=phase, **args)
    # Memory held by the step: each sequence's KV after it (decode: context + 1; prefill: the prompt).
    held = (prompt_tokens or context_tokens) if phase == "prefill" else context_tokens + 1
    f = m.feasibility(model, gpu, context_tokens=held, batch=batch_size, tp=tensor_parallel,
                      weight_dtype=weight_dtype, kv_dtype=kv_dtype, gpu_memory_utilization=gpu_memory_utilization,
                      **layout)
    other = _step(model, gpu, phase="decode" if phase == "prefill" else "prefill", **args)
    points = []
    for name, s in sorted(((phase, r), ("decode" if phase == "prefill" else "prefill", other))):
        achieved = float(s.flops_per_gpu) / float(s.step_time_s)
        points.append({"phase": name, "arithmetic_intensity_flops_per_byte": s.arithmetic_intensity,
                       "achieved_flops_per_s": achieved, "bound": s.bound})
    peak = gpu.peak_flops(weight_dtype)
    return {
        "model": model_summary(model), "gpu": gpu_summary(gpu), "phase": phase,
        "tokens": batch_size * ((prompt_tokens or context_tokens) if phase == "prefill" else 1),
        "flops": r.flops_per_gpu,
        "bytes": r.bytes_per_gpu,
        "weight_bytes": r.weight_bytes_per_gpu,
        "kv_bytes": r.kv_bytes_per_gpu,
        "arithmetic_intensity_flops_per_byte": r.arithmetic_intensity,
        "ridge_point_flops_per_byte": r.ridge_point,
        "peak_flops_per_s": peak,
        "compute_seconds": r.compute_time_s,
        "memory_seconds": r.memory_time_s,
        "communication_seconds": r.communication_time_s,
        "overhead_seconds": r.overhead_time_s,
        "expert_kernels_seconds": r.expert_kernels_time_s,
        "parts": [{"part": name, "compute_seconds": compute, "memory_seconds": memory, "seconds": seconds,
                   "overlapped": name not in SERIAL_PARTS}
                  for name, (compute, memory, seconds) in r.part_times_s.items()],
        "step_seconds": r.step_time_s,
        "step_seconds_range": r.step_time_s_range,
        "tokens_per_s": r.tokens_per_s,
        "tokens_per_s_range": r.tokens_per_s_range,
        "output_tokens_per_s": r.output_tokens_per_s,
        "deployment_tokens_per_s": r.tokens_per_s * data_parallel,
        "expert_imbalance": r.expert_imbalance,
        "all_to_all_seconds": r.all_to_all_time_s,
        **parallel_fields(r.parallel),
        "bound": r.bound,
        "crossover_batch": r.crossover_batch,
        "crossover_reachable": r.crossover_reachable,
        "roofline": {"peak_flops_per_s": peak, "bandwidth_bytes_per_s": gpu.hbm_bandwidth_bytes_per_s,
                     "ridge_point_flops_per_byte": r.ridge_point, "points": points},
        **feasibility_fields(f),
        "note": _infeasible_note(f, r.note),
        "derivation": r.derivation,
        "feasibility_derivation": f.derivation,
        "priors": r.priors,
        "warnings": context_warnings(model, context_tokens + (prompt_tokens or 0)) + tp_warnings(model, tensor_parallel)
        + moe_warnings(model),
    }


def throughput_latency_calculate(*, model, gpu, prompt_tokens, output_tokens, tensor_parallel, weight_dtype,
                                 kv_dtype, gpu_memory_utilization, max_num_seqs, cuda_graphs: bool = True) -> dict:
    r = m.throughput_latency_curve(model, gpu, prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                                   tp=tensor_parallel, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
                                   gpu_memory_utilization=gpu_memory_utilization, max_num_seqs=max_num_seqs,
                                   cuda_graphs=cuda_graphs)
    points = [
        {"batch_size": int(b), "tpot_seconds": float(r.tpot_s[i]),
         "tpot_seconds_range": [float(r.tpot_s_range[0][i]), float(r.tpot_s_range[1][i])],
         "tokens_per_s": float(r.tokens_per_s[i]),
         "tokens_per_s_range": [float(r.tokens_per_s_range[0][i]), float(r.tokens_per_s_range[1][i])],
         "tokens_per_s_per_gpu": float(r.tokens_per_s_per_gpu[i]), "bound": str(r.bound[i]),
         "decode_step_seconds": float(r.decode_step_s[i]),
         "decode_step_seconds_range": [float(r.decode_step_s_range[0][i]), float(r.decode_step_s_range[1][i])]}
        for i, b in enumerate(r.batch)
    ]
    last = points[-1] if points else None
    # One sequence at its final length must fit, else the curve is empty (max_batch 0).
    f = m.feasibility(model, gpu, context_tokens=prompt_tokens + output_tokens, batch=1, tp=tensor_parallel,
                      weight_dtype=weight_dtype, kv_dtype=kv_dtype, gpu_memory_utilization=gpu_memory_utilization)
    return {
        "model": model_summary(model), "gpu": gpu_summary(gpu), "points": points, "max_batch": r.max_batch,
        "tensor_parallel": tensor_parallel, "prefill_seconds_per_token": float(r.prefill_s_per_token),
        "bound": last["bound"] if last else "memory",
        "crossover_batch": _crossover(model, gpu, prompt_tokens + output_tokens / 2, tensor_parallel, weight_dtype, kv_dtype),
        **feasibility_fields(f),
        "note": r.note if f.feasible else f"{f.reason} {f.fix} {r.note}", "derivation": r.derivation,
        "warnings": context_warnings(model, prompt_tokens + output_tokens) + tp_warnings(model, tensor_parallel)
        + moe_warnings(model),
    }


def _crossover(model, gpu, context, tp, weight_dtype, kv_dtype) -> float:
    s = m.step_time(model, gpu, batch=1, context_tokens=context, tp=tp, weight_dtype=weight_dtype, kv_dtype=kv_dtype)
    return float(s.crossover_batch)


def capacity_calculate(*, model, gpu, workload: dict, slo: dict, weight_dtype, kv_dtype, tensor_parallel,
                       price_per_gpu_hour_usd, gpu_memory_utilization, max_utilization, pipeline_parallel: int = 1,
                       data_parallel: int = 1, expert_parallel: int = 1, cuda_graphs: bool = True) -> dict:
    r = m.plan_capacity(model, gpu, requests_per_s=workload["requests_per_s"], prompt_tokens=workload["prompt_tokens"],
                        output_tokens=workload["output_tokens"], ttft_p99_s=slo["ttft_p99_s"], tpot_s=slo["tpot_s"],
                        weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tensor_parallel,
                        price_per_gpu_hour=price_per_gpu_hour_usd, gpu_memory_utilization=gpu_memory_utilization,
                        max_utilization=max_utilization, pp=pipeline_parallel, dp=data_parallel, ep=expert_parallel,
                        cuda_graphs=cuda_graphs)
    price = gpu.price_per_hour_usd if price_per_gpu_hour_usd is None else price_per_gpu_hour_usd
    # Memory verdict for one sequence of prompt + output tokens: at the requested TP, else at the planner's TP, else at
    # the smallest TP that fits (the SLOs failed there), else at TP 8 (nothing fits: the dtype fix is for 8 GPUs).
    # With expert parallelism on, EP follows the TP checked (EP = TP · DP).
    mem = dict(context_tokens=workload["prompt_tokens"] + workload["output_tokens"], batch=1,
               weight_dtype=weight_dtype, kv_dtype=kv_dtype, gpu_memory_utilization=gpu_memory_utilization,
               pp=pipeline_parallel, dp=data_parallel)

    def verdict_at(tp: int) -> m.Feasibility:
        return m.feasibility(model, gpu, tp=tp, ep=tp * data_parallel if expert_parallel > 1 else 1, **mem)

    f = verdict_at(tensor_parallel or r.tp or 1)
    if tensor_parallel is None and r.tp is None and f.min_tensor_parallel != 1:
        f = verdict_at(f.min_tensor_parallel or max(m.memory.TP_CHOICES))
    verdict = feasibility_fields(f)
    if f.fits and not r.feasible:  # memory is fine; the SLOs are not
        verdict.update(reason=f"Fits in memory, but no plan meets the SLOs: {r.derivation}", fix="")
    return {
        "model": model_summary(model), "gpu": gpu_summary(gpu), **verdict, "feasible": r.feasible,
        "gpus": r.gpus, "gpus_range": r.gpus_range, "replicas": r.replicas, "replicas_range": r.replicas_range,
        "tp": r.tp, "batch_per_replica": r.batch_per_replica,
        "requests_per_s_per_replica": r.requests_per_s_per_replica,
        "ttft_seconds": r.ttft_s, "tpot_seconds": r.tpot_s, "utilization": r.utilization,
        "price_per_gpu_hour_usd": price,
        "usd_per_hour": r.dollars_per_hour, "usd_per_hour_range": r.dollars_per_hour_range,
        "usd_per_million_tokens": r.dollars_per_million_tokens,
        "usd_per_million_tokens_range": r.dollars_per_million_tokens_range,
        "usd_per_million_output_tokens": r.dollars_per_million_output_tokens,
        "limiting_factor": r.limiting_factor, "bound": r.limiting_factor,
        "note": r.note, "derivation": r.derivation,
        "warnings": context_warnings(model, workload["prompt_tokens"] + workload["output_tokens"]) + moe_warnings(model),
    }


# ---------------------------------------------------------------- tools


def speculative_calculate(*, acceptance_rate: float, draft_tokens: int, draft_cost: float, max_draft_tokens: int) -> dict:
    r = m.speculative_speedup(acceptance_rate, draft_tokens, draft_cost, max_gamma=max_draft_tokens)
    gammas = np.arange(0, max_draft_tokens + 1, dtype=float)
    curve = m.speculative_speedup(np.full_like(gammas, acceptance_rate), gammas, draft_cost, max_gamma=max_draft_tokens)
    return {
        "expected_tokens_per_step": r.expected_tokens_per_step, "speedup": r.speedup,
        "optimal_draft_tokens": r.optimal_gamma, "optimal_speedup": r.optimal_speedup,
        "bound": "memory", "note": "The speedup assumes verifying γ+1 tokens costs one decode step, true while "
        "decode is memory-bound (small batches); at large batch the verify step grows and the gain shrinks.",
        "curve": [{"draft_tokens": int(g), "expected_tokens_per_step": float(e), "speedup": float(s)}
                  for g, e, s in zip(gammas, np.atleast_1d(curve.expected_tokens_per_step), np.atleast_1d(curve.speedup), strict=True)],
        "derivation": r.derivation,
    }


def collectives_calculate(*, op: str, message_bytes: float, num_gpus: int, link_bandwidth_bytes_per_s: float | None,
                          gpu: m.GPUSpec | None, latency_s: float, algorithm: str) -> dict:
    bw = link_bandwidth_bytes_per_s or gpu.interconnect_bandwidth_bytes_per_s / 2.0
    r = m.collective_time(op, message_bytes=message_bytes, num_gpus=num_gpus, link_bandwidth_bytes_per_s=bw,
                          latency_s=latency_s, algorithm=algorithm)
    sizes = np.logspace(3, 10, 29)
    curves = []
    for algo in (m.collectives.ALGORITHMS if op == "all_reduce" else ("ring",)):
        c = m.collective_time(op, message_bytes=sizes, num_gpus=num_gpus, link_bandwidth_bytes_per_s=bw,
                              latency_s=latency_s, algorithm=algo)
        curves.append({"algorithm": algo, "message_bytes": sizes, "seconds": c.time_s})
    bound = "latency" if float(r.latency_term_s) > float(r.bandwidth_term_s) else "bandwidth"
    return {
        "op": op, "algorithm": algorithm, "num_gpus": num_gpus, "message_bytes": message_bytes,
        "link_bandwidth_bytes_per_s": bw, "gpu": gpu_summary(gpu) if gpu else None,
        "seconds": r.time_s, "bandwidth_term_seconds": r.bandwidth_term_s, "latency_term_seconds": r.latency_term_s,
        "algorithm_bandwidth_bytes_per_s": r.algorithm_bandwidth_bytes_per_s,
        "bus_bandwidth_bytes_per_s": r.bus_bandwidth_bytes_per_s, "bound": bound, "curves": curves,
        "derivation": r.derivation,
    }


def paged_kv_calculate(*, sequence_lengths: list[int], block_size: int, max_model_len: int,
                       model: m.ModelSpec | None, kv_dtype: str) -> dict:
    per_token = float(m.kv_cache(model, context_tokens=1, kv_dtype=kv_dtype).bytes_per_token) if model else 1.0
    r = m.paged_vs_contiguous(sequence_lengths, max_model_len=max_model_len, block_size=block_size,
                              kv_bytes_per_token=per_token)
    blocks = np.atleast_1d(r.blocks_needed).astype(int)
    lengths = np.asarray(sequence_lengths)
    last_fill = lengths - (blocks - 1) * block_size
    return {
        "block_size": block_size, "max_model_len": max_model_len, "kv_bytes_per_token": per_token,
        "model": model_summary(model) if model else None,
        "sequences": [{"tokens": int(s), "blocks": int(b), "last_block_tokens": int(f)}
                      for s, b, f in zip(lengths, blocks, last_fill, strict=True)],
        "total_blocks": r.total_blocks, "used_tokens": r.used_tokens,
        "contiguous_reserved_tokens": r.contiguous_reserved_tokens,
        "contiguous_waste_fraction": r.contiguous_waste_fraction,
        "paged_reserved_tokens": r.paged_reserved_tokens, "paged_waste_fraction": r.paged_waste_fraction,
        "contiguous_bytes": r.contiguous_bytes, "paged_bytes": r.paged_bytes,
        "contiguous_waste_bytes": (r.contiguous_reserved_tokens - r.used_tokens) * per_token,
        "paged_waste_bytes": (r.paged_reserved_tokens - r.used_tokens) * per_token,
        "derivation": r.derivation,
    }


MAX_SHOWN_PROMPTS = 64
MAX_SHOWN_HASHES = 64


def _hex(keys: np.ndarray) -> np.ndarray:
    """The top 48 bits of each uint64 key as 12 hex digits (a str array, which jsonable lists in one call)."""
    return np.frombuffer(keys.astype(">u8").tobytes().hex().encode(), dtype="S16").astype("U12")


class SyntheticPrompts(list):
    """Tokenized rows of one synthetic token matrix; `matrix` lets the hashing skip gathering the rows."""

    def __init__(self, matrix: np.ndarray) -> None:
        super().__init__(Tokenized(row, [], "synthetic") for row in matrix)
        self.matrix = matrix


def prefix_cache_calculate(*, prompts: list[Tokenized], block_size: int, capacity_blocks: int) -> dict:
    ids = prompts.matrix if isinstance(prompts, SyntheticPrompts) else [p.ids for p in prompts]
    r = m.lru_hit_rate(ids, block_size=block_size, capacity_blocks=capacity_blocks)
    shown_keys = [chain[:MAX_SHOWN_HASHES] for chain in r.chains[:MAX_SHOWN_PROMPTS]]
    hexes = np.split(_hex(np.concatenate([np.zeros(0, np.uint64), *shown_keys])),
                     np.cumsum([len(k) for k in shown_keys])[:-1].astype(int))
    shown = [{"tokens": len(p.ids), "blocks": len(chain), "hit_blocks": hits, "hashes": h,
              "hashes_truncated": len(chain) > MAX_SHOWN_HASHES, "pieces": p.pieces[:block_size * 4]}
             for p, chain, hits, h in zip(prompts, r.chains, r.hits_per_request, hexes, strict=False)]
    return {
        "tokenizer": prompts[0].tokenizer if prompts else "none",
        "block_size": block_size, "capacity_blocks": capacity_blocks, "num_prompts": len(prompts),
        "prompts": shown, "hit_blocks": r.hit_blocks, "lookup_blocks": r.lookup_blocks,
        "hit_rate": r.hit_rate, "token_hit_rate": r.token_hit_rate, "evictions": r.evictions,
        "derivation": r.derivation + "; block key = hash(parent key, tokens of the block), shown as 12 hex digits",
    }


def synthetic_prompt_tokens(*, num_requests, num_system_prompts, system_tokens, user_tokens, seed) -> list[Tokenized]:
    rng = np.random.default_rng(seed)
    with model_errors():
        matrix = m.prefix_cache.synthetic_prompt_matrix(
            num_requests=num_requests, num_system_prompts=num_system_prompts, system_tokens=system_tokens,
            user_tokens=user_tokens, rng=rng)
    return SyntheticPrompts(matrix)  # ids stay numpy rows: hashed without a list round trip


def moe_calculate(*, num_experts: int, top_k: int, tokens: int, zipf_exponent: float, capacity_factor: float,
                  hidden_size: int) -> dict:
    r = m.expert_load(num_experts=num_experts, top_k=top_k, tokens=tokens, zipf_exponent=zipf_exponent,
                      capacity_factor=capacity_factor, hidden_size=hidden_size)
    uniform = num_experts * (1.0 - ((num_experts - top_k) / num_experts) ** tokens)
    return {
        "num_experts": num_experts, "top_k": top_k, "tokens": tokens,
        "expected_load_tokens": r.expected_load_tokens, "selection_probability": r.selection_probability,
        "mean_load_tokens": tokens * top_k / num_experts,
        "imbalance": r.imbalance, "capacity_tokens": r.capacity_tokens, "dropped_fraction": r.dropped_fraction,
        "dropped_tokens": r.dropped_fraction * tokens * top_k,
        "distinct_experts": r.distinct_experts, "expected_distinct_experts_uniform": uniform,
        "all_to_all_bytes_per_layer": r.all_to_all_bytes_per_layer,
        "derivation": r.derivation + f"; uniform routing touches N·(1 − ((N−k)/N)^B) = {num_experts}·(1 − "
        f"(({num_experts}−{top_k})/{num_experts})^{tokens}) = {uniform:.2f} experts",
    }


def request_walk_calculate(*, model, gpu, prompt: Tokenized, output_tokens: int, batch_size: int, tensor_parallel: int,
                           weight_dtype: str, kv_dtype: str,
                           gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION) -> dict:
    """Prefill emits the first output token; output − 1 decode steps emit the rest (as the engine does). Decode step i
    (i = 1 … output − 1) feeds token i with n + i − 1 tokens cached and emits token i + 1."""
    n = len(prompt.ids)
    decodes = output_tokens - 1
    common = dict(tp=tensor_parallel, weight_dtype=weight_dtype, kv_dtype=kv_dtype)
    pre = m.step_time(model, gpu, batch=1, context_tokens=0, new_tokens=n, **common)
    ctx = n + np.arange(max(decodes, 1), dtype=float)
    dec = m.step_time(model, gpu, batch=batch_size, context_tokens=ctx, new_tokens=1, **common)
    per_token = float(m.kv_cache(model, context_tokens=1, kv_dtype=kv_dtype, tp=tensor_parallel).bytes_per_token_per_gpu)
    steps = np.atleast_1d(dec.step_time_s)[:decodes]
    lo, hi = np.atleast_1d(dec.step_time_s_range[0])[:decodes], np.atleast_1d(dec.step_time_s_range[1])[:decodes]
    ttft = float(pre.step_time_s)
    # The meters: what each step achieves against the GPU's peaks, from the step-time model's own work and time
    # (FLOPs per GPU ÷ step time ÷ peak FLOP/s; bytes per GPU ÷ step time ÷ HBM bandwidth).
    peak, bandwidth = float(gpu.peak_flops(weight_dtype)), float(gpu.hbm_bandwidth_bytes_per_s)

    def use(flops, moved, seconds) -> dict:
        return {"compute_utilization": float(flops) / float(seconds) / peak,
                "bandwidth_utilization": float(moved) / float(seconds) / bandwidth}

    timeline = [{"kind": "prefill", "index": 1, "tokens": n, "start_seconds": 0.0, "end_seconds": ttft,
                 "kv_bytes": float(m.kv_bytes_per_sequence(model, n, kv_dtype, tensor_parallel)), "bound": pre.bound,
                 **use(pre.flops_per_gpu, pre.bytes_per_gpu, ttft)}]
    dec_flops, dec_bytes = np.atleast_1d(dec.flops_per_gpu), np.atleast_1d(dec.bytes_per_gpu)
    t = ttft + np.concatenate([[0.0], np.cumsum(steps)])
    kv_after = np.atleast_1d(m.kv_bytes_per_sequence(model, ctx + 1, kv_dtype, tensor_parallel))
    bounds = np.atleast_1d(dec.bound)
    for i in range(decodes):
        timeline.append({"kind": "decode", "index": i + 2, "tokens": 1, "start_seconds": float(t[i]),
                         "end_seconds": float(t[i + 1]), "kv_bytes": float(kv_after[i]), "bound": str(bounds[i]),
                         **use(dec_flops[i], dec_bytes[i], steps[i])})
    itl = float(steps.mean()) if decodes else 0.0
    weights_gpu = float(np.atleast_1d(dec.weight_bytes_per_gpu)[0])
    # Memory: batch_size sequences of the prompt plus every output token but the last (never fed back).
    f = m.feasibility(model, gpu, context_tokens=n + decodes, batch=batch_size, tp=tensor_parallel,
                      weight_dtype=weight_dtype, kv_dtype=kv_dtype, gpu_memory_utilization=gpu_memory_utilization)
    return {
        "model": model_summary(model), "gpu": gpu_summary(gpu), "tokenizer": prompt.tokenizer,
        "prompt_tokens": n, "token_ids": prompt.ids, "token_pieces": prompt.pieces, "output_tokens": output_tokens,
        "ttft_seconds": ttft, "ttft_seconds_range": pre.step_time_s_range,
        "itl_seconds": itl, "itl_seconds_range": [float(lo.mean()), float(hi.mean())] if decodes else [0.0, 0.0],
        "total_seconds": float(t[-1]), "decode_steps": decodes, "kv_bytes_per_token": per_token,
        "prefill_bound": pre.bound, "decode_bound": str(bounds[0]),
        "bound": str(bounds[0]) if decodes else pre.bound,
        "crossover_batch": float(np.atleast_1d(dec.crossover_batch)[0]),
        "decode_weight_bytes_per_step": weights_gpu,
        "peak_flops_per_s": peak, "peak_bandwidth_bytes_per_s": bandwidth,
        "timeline": timeline,
        **feasibility_fields(f),
        "derivation": (("" if f.feasible else f"{f.reason} {f.fix} The times are what it would take if it ran. ")
                       + f"Prefill: {n:,} tokens in one step, compute-heavy → TTFT {ttft * 1e3:.2f} ms "
                       f"({pre.bound}-bound), writing {n:,} × {per_token:,.0f} B of KV and emitting output token 1. "
                       f"Then {decodes:,} decode steps (output − 1) emit tokens 2 … {output_tokens:,}: each reads the "
                       f"weights ({weights_gpu:,.0f} B per GPU) plus the KV so far and writes {per_token:,.0f} B → "
                       f"mean inter-token latency {itl * 1e3:.3f} ms at batch {batch_size}; total = TTFT + "
                       f"{decodes:,} × ITL = {float(t[-1]) * 1e3:.2f} ms. Prefill: {pre.derivation}"),
        "warnings": context_warnings(model, n + output_tokens),
    }


def serve_config_calculate(*, model, gpu, workload: dict, tensor_parallel: int | None, weight_dtype: str, kv_dtype: str,
                           gpu_memory_utilization: float, max_num_seqs: int, enable_prefix_caching: bool,
                           pipeline_parallel: int = 1, data_parallel: int = 1, expert_parallel: int = 1) -> dict:
    context = workload["prompt_tokens"] + workload["output_tokens"]
    max_len = min(context, model.max_position_embeddings)
    warnings = context_warnings(model, context)
    tp = tensor_parallel
    if tp is None and expert_parallel > 1:  # EP = TP · DP fixes the TP
        if expert_parallel % data_parallel or expert_parallel // data_parallel not in m.memory.TP_CHOICES:
            raise InvalidInput(f"expert parallelism spans TP · DP GPUs: with tensor_parallel left to the planner, "
                               f"give expert_parallel = {data_parallel} × one of {m.memory.TP_CHOICES}",
                               field="expert_parallel")
        tp = expert_parallel // data_parallel
    if tp is None:
        smallest = m.min_tp(model, gpu, context_tokens=max_len, batch=workload.get("concurrency", 1),
                            weight_dtype=weight_dtype, kv_dtype=kv_dtype, gpu_memory_utilization=gpu_memory_utilization,
                            pp=pipeline_parallel, dp=data_parallel)
        if smallest.tp is None:
            raise InvalidInput(smallest.derivation, field="model")
        tp = smallest.tp
    r = m.vllm_serve_config(model, gpu, tp=tp, pp=pipeline_parallel, dp=data_parallel, ep=expert_parallel,
                            max_model_len=int(max_len), gpu_memory_utilization=gpu_memory_utilization,
                            weight_dtype=weight_dtype, kv_dtype=kv_dtype, max_num_seqs=max_num_seqs,
                            enable_prefix_caching=enable_prefix_caching)
    layout = m.Parallelism(tp, pipeline_parallel, data_parallel, expert_parallel)
    return {"model": model_summary(model), "gpu": gpu_summary(gpu), **parallel_fields(layout),
            "max_model_len": int(max_len), "command": r.command, "flags": r.flags, "kubernetes_yaml": r.kubernetes_yaml,
            "derivation": r.derivation, "warnings": warnings}


def tokenize_prompt(*, text: str | None, tokens: list[int] | None, tokenizer: str | None) -> Tokenized:
    if tokens is not None:
        return client_tokens(tokens, tokenizer)
    return approximate_tokenize(text or "")


# ---------------------------------------------------------------- catalog authoring


def catalog_write(model_cls, instance, data: dict):
    """Creates (``instance`` None; a draft unless ``status`` says otherwise) or updates a catalog row, checked by
    the model's ``clean()`` (apps.simulators.validation); returns (row, warnings)."""
    row = instance or model_cls(status=Status.DRAFT)
    for name, value in data.items():
        setattr(row, name, value)
    if isinstance(row, ModelConfig) and not row.sliding_window_pattern:
        row.sliding_window_pattern = None
    if isinstance(row, GPU) and row.price_note is None:
        row.price_note = ""
    clean_or_400(row)
    row.save()
    return row, model_warnings(row) if isinstance(row, ModelConfig) else gpu_warnings(row)
