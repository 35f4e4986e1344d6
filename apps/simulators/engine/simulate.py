"""One entry point from (model, GPU, knobs, workload) to a JSON-ready result.

KV blocks: vLLM hands the KV cache whatever `modeling.memory.fit` leaves after weights,
the profiling pass's activation peak and runtime overhead, at gpu_memory_utilization;
blocks = floor(that / (KV bytes per token per GPU · block_size)). With data parallelism the engine runs one
deployment's DP ranks as one engine sharing the batch evenly: DP × the blocks, max_num_seqs and
max_num_batched_tokens of a rank (vLLM's limits are per rank), while one request must fit a rank's blocks. Step cost:
`costs.roofline_step_cost` (roofline priors' expected efficiencies). Cost per million
output tokens = GPUs · price per GPU-hour / 3600 / output tokens per second · 10⁶.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..modeling.kv import kv_bytes_per_token_per_layer
from ..modeling.memory import fit, tp_is_valid
from ..modeling.parallel import Parallelism
from ..modeling.specs import GPUSpec, ModelSpec
from ..modeling.vllm_defaults import BLOCK_SIZE, GPU_MEMORY_UTILIZATION
from .cluster import ROUTERS, run_replicas
from .costs import roofline_step_cost
from .disaggregation import Pool, run_disaggregated
from .engine import SimulationError, WorkLimit
from .metrics import SLO, engine_stats, invariants, request_summary, series, step_log
from .scheduler import SchedulerConfig
from .workload import Workload


@dataclass(frozen=True)
class ServingSetup:
    model: ModelSpec
    gpu: GPUSpec
    tensor_parallel: int = 1
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    chunked_prefill: bool = True
    prefix_caching: bool = False
    block_size: int = BLOCK_SIZE
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION
    static_batching: bool = False
    weight_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    pipeline_parallel: int = 1
    data_parallel: int = 1
    expert_parallel: int = 1
    long_prefill_token_threshold: int = 0
    scheduler_reserve_full_isl: bool = True
    cuda_graphs: bool = True   # False: vLLM's enforce_eager, kernel launches added to every step (step_overhead.py)

    @property
    def parallel(self) -> Parallelism:
        return Parallelism(self.tensor_parallel, self.pipeline_parallel, self.data_parallel, self.expert_parallel)


@dataclass(frozen=True)
class Disaggregation:
    prefill_replicas: int = 1
    decode_replicas: int = 1
    link_bandwidth_bytes_per_s: float | None = None   # default: one direction of the GPU interconnect
    link_latency_s: float = 10e-6
    prefill_tensor_parallel: int | None = None        # default: the setup's tensor_parallel
    decode_tensor_parallel: int | None = None

    def pool_setups(self, setup: ServingSetup) -> tuple[ServingSetup, ServingSetup]:
        """The prefill and decode pools' setups: the setup at each pool's TP (with expert parallelism on, EP follows
        it: EP = TP · DP)."""
        def at(tp: int | None) -> ServingSetup:
            if tp is None or tp == setup.tensor_parallel:
                return setup
            ep = tp * setup.data_parallel if setup.expert_parallel > 1 else 1
            return replace(setup, tensor_parallel=tp, expert_parallel=ep)

        return at(self.prefill_tensor_parallel), at(self.decode_tensor_parallel)


def kv_bytes_per_token(setup: ServingSetup) -> float:
    """KV bytes one GPU holds per token: its TP share of each layer, for the layers of its pipeline stage."""
    m = setup.model
    per_layer = kv_bytes_per_token_per_layer(m, setup.kv_dtype, setup.tensor_parallel)
    return per_layer * m.num_layers / setup.pipeline_parallel


def kv_blocks(setup: ServingSetup) -> int:
    """Blocks of the paged KV cache of one DP rank (SimulationError naming the knob when nothing fits)."""
    m, tp = setup.model, setup.tensor_parallel
    if not tp_is_valid(m, tp):
        raise SimulationError("tensor_parallel", f"TP={tp} does not divide {m.name}'s {m.num_attention_heads} "
                              f"attention heads / {m.num_kv_heads} KV heads")
    r = fit(m, setup.gpu, context_tokens=1, tp=tp, weight_dtype=setup.weight_dtype, kv_dtype=setup.kv_dtype,
            gpu_memory_utilization=setup.gpu_memory_utilization,
            max_num_batched_tokens=setup.max_num_batched_tokens, max_num_seqs=setup.max_num_seqs,
            pp=setup.pipeline_parallel, dp=setup.data_parallel, ep=setup.expert_parallel)
    blocks = int(float(r.kv_budget_bytes_per_gpu) // (kv_bytes_per_token(setup) * setup.block_size))
    if blocks < 1:
        raise SimulationError("gpu", f"{m.name} ({setup.weight_dtype}) leaves no room for a KV cache on "
                              f"{tp} × {setup.gpu.name} at gpu_memory_utilization {setup.gpu_memory_utilization:g}; "
                              "raise tensor_parallel or use a smaller weight_dtype")
    return blocks


def check_fits(setup: ServingSetup, workload: Workload, blocks: int) -> None:
    longest = int((workload.prompt_tokens + workload.output_tokens).max())
    if longest > setup.model.max_position_embeddings:
        raise SimulationError("workload.prompt_tokens", f"a request of {longest:,} tokens exceeds {setup.model.name}'s "
                              f"context of {setup.model.max_position_embeddings:,} tokens")
    if longest > blocks * setup.block_size:
        raise SimulationError("workload.prompt_tokens", f"a request of {longest:,} tokens does not fit the KV cache "
                              f"of {blocks * setup.block_size:,} tokens")
    if not setup.chunked_prefill and longest > setup.max_num_batched_tokens:
        raise SimulationError("max_num_batched_tokens", f"without chunked prefill it must be at least the longest "
                              f"request ({longest:,} tokens)")


def simulate(
    setup: ServingSetup,
    workload: Workload,
    *,
    slo: SLO,
    replicas: int = 1,
    router: str = "round_robin",
    disaggregation: Disaggregation | None = None,
    max_steps: int = 5_000_000,
    limit: WorkLimit | None = None,
    trace_steps: int = 0,
) -> dict:
    """`limit` caps the work of the whole simulation (all engines together); `max_steps` each engine's steps;
    `trace_steps` > 0 adds the first engine's first steps as `step_log`."""
    if router not in ROUTERS:
        raise SimulationError("router", f"must be one of {', '.join(ROUTERS)}")
    w = workload
    transfer_area = 0.0
    transfer = None
    pools: dict[str, list] = {}
    if disaggregation is None:
        blocks = kv_blocks(setup)
        check_fits(setup, workload, blocks)
        cfg, cost = _scheduler(setup, blocks), _step_cost(setup)
        engines, _ = run_replicas(w, cfg, cost, replicas=replicas, router=router, max_steps=max_steps,
                                     limit=limit)
        first_t = np.full(len(w), np.nan)
        finish_t = np.full(len(w), np.nan)
        for e in engines:
            idx = np.asarray(e.pending, np.int64)
            first_t[idx], finish_t[idx] = e.first_t[idx], e.finish_t[idx]
        gpus = replicas * setup.parallel.gpus
    else:
        d = disaggregation
        pre_setup, setup = d.pool_setups(setup)  # the result's KV cache is the decode pool's, where requests stay
        pre_blocks, blocks = kv_blocks(pre_setup), kv_blocks(setup)
        check_fits(pre_setup, workload, pre_blocks)
        check_fits(setup, workload, blocks)
        bw = d.link_bandwidth_bytes_per_s or setup.gpu.interconnect_bandwidth_bytes_per_s / 2.0
        # every GPU of the narrower pool moves its whole shard: the larger of the two per-GPU shares
        link_bytes = max(kv_bytes_per_token(pre_setup), kv_bytes_per_token(setup))
        res = run_disaggregated(w, Pool(d.prefill_replicas, _scheduler(pre_setup, pre_blocks), _step_cost(pre_setup)),
                                Pool(d.decode_replicas, _scheduler(setup, blocks), _step_cost(setup)), router=router,
                                kv_bytes_per_token=link_bytes, link_bandwidth_bytes_per_s=bw,
                                link_latency_s=d.link_latency_s, max_steps=max_steps, limit=limit)
        engines = res.prefill + res.decode
        pools = {"prefill": res.prefill, "decode": res.decode}
        first_t, finish_t = res.first_t, res.finish_t
        transfer = res.transfer_s[w.output_tokens > 1]
        transfer_area = float(transfer.sum())
        gpus = d.prefill_replicas * pre_setup.parallel.gpus + d.decode_replicas * setup.parallel.gpus
    result = _result(setup, w, slo, engines, pools, first_t, finish_t, transfer_area, gpus, blocks)
    if transfer is not None and transfer.size:
        result["kv_transfer_s"] = {"mean": float(transfer.mean()), "max": float(transfer.max())}
    if trace_steps:
        result["step_log"] = step_log(engines[0], trace_steps)
    return result


def _scheduler(setup: ServingSetup, blocks: int) -> SchedulerConfig:
    """The engine's scheduler for one replica of the setup: a DP deployment is one engine with DP × a rank's limits."""
    dp = setup.data_parallel
    return SchedulerConfig(setup.max_num_seqs * dp, setup.max_num_batched_tokens * dp, setup.chunked_prefill,
                           setup.prefix_caching, setup.block_size, blocks * dp, setup.static_batching,
                           long_prefill_token_threshold=setup.long_prefill_token_threshold,
                           scheduler_reserve_full_isl=setup.scheduler_reserve_full_isl)


def _step_cost(setup: ServingSetup):
    return roofline_step_cost(setup.model, setup.gpu, tp=setup.tensor_parallel, weight_dtype=setup.weight_dtype,
                              kv_dtype=setup.kv_dtype, par=setup.parallel, cuda_graphs=setup.cuda_graphs)


def _result(setup, w, slo, engines, pools, first_t, finish_t, transfer_area, gpus, blocks) -> dict:
    summary = request_summary(w.arrival_s, first_t, finish_t, w.output_tokens, slo)
    per = [engine_stats(e) for e in engines]
    area = sum(e.area for e in engines) + transfer_area
    inv = invariants(per, area, summary)
    summary.pop("_mean_e2e")
    lookups = sum(s["lookup_tokens"] for s in per)
    tokens_per_s = summary["throughput"]["output_tokens_per_s"]
    usd_per_hour = gpus * setup.gpu.price_per_hour_usd
    t0 = float(w.arrival_s.min())
    t1 = max(t0, float(np.nanmax(finish_t)) if np.isfinite(finish_t).any() else t0)
    result = {
        **summary,
        "preemptions": sum(s["preemptions"] for s in per),
        "prefix_cache_hit_rate": sum(s["hit_tokens"] for s in per) / lookups if lookups else 0.0,
        "steps": sum(s["steps"] for s in per),
        "mean_batch_size": float(np.mean([s["mean_batch_size"] for s in per])),
        "kv_cache": {"blocks_per_replica": blocks * setup.data_parallel, "block_size": setup.block_size,
                     "capacity_tokens_per_replica": blocks * setup.data_parallel * setup.block_size,
                     "bytes_per_token_per_gpu": kv_bytes_per_token(setup)},
        "cost": {"gpus": gpus, "usd_per_hour": usd_per_hour,
                 "usd_per_million_output_tokens": _usd_per_million(usd_per_hour, tokens_per_s)},
        "invariants": inv,
        "series": series(engines, t0, t1),
        "replicas": [_replica(s, e) for s, e in zip(per, engines, strict=True)],
    }
    if pools:
        result["pools"] = {name: len(es) for name, es in pools.items()}
    return result


def _replica(s: dict, e) -> dict:
    span = max(e.now, 1e-12)
    return {"requests": s["requests"], "steps": s["steps"], "preemptions": s["preemptions"],
            "prefix_cache_hit_rate": s["prefix_cache_hit_rate"], "mean_batch_size": s["mean_batch_size"],
            "busy_fraction": min(1.0, s["busy_s"] / span), "output_tokens": s["output_tokens"]}


def _usd_per_million(usd_per_hour: float, tokens_per_s: float) -> float:
    if tokens_per_s <= 0 or not math.isfinite(tokens_per_s):
        return 1e12  # nothing served: a finite stand-in for "infinitely expensive"
    return usd_per_hour / 3600.0 / tokens_per_s * 1e6
