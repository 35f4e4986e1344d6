"""Prefill/decode disaggregation: separate replica pools with a KV transfer in between.

A request runs its prompt on a prefill replica (which emits the first token: TTFT),
then its KV cache moves to a decode replica: transfer = latency + bytes / bandwidth,
with bytes = the prompt's KV on one GPU (every TP rank sends its own shard in parallel,
`modeling.kv.kv_bytes_per_sequence`). The pools may run different tensor parallelism (a
wide prefill pool for compute, a narrower decode pool for memory): each pool has its own
scheduler, KV cache and step cost, and the shards are resharded on the way: each GPU of
the narrower pool sends or receives its whole shard, so the bytes per link are the larger
of the two pools' per-GPU KV. Default link: one direction of the GPU's
interconnect (NVLink inside a node); RDMA between nodes is ~50 GB/s per GPU (400 Gb/s
NIC). The decode pool never feeds back into the prefill pool, so the pools are
simulated one after the other: prefill first, then decode with arrival = first token +
transfer. A decode replica admits a request with its KV already computed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cluster import run_replicas
from .costs import StepCostFn
from .engine import Engine
from .scheduler import SchedulerConfig
from .workload import Workload


@dataclass(frozen=True)
class DisaggResult:
    prefill: list[Engine]
    decode: list[Engine]
    first_t: np.ndarray
    finish_t: np.ndarray
    transfer_s: np.ndarray


@dataclass(frozen=True)
class Pool:
    """One pool's replicas: how many, their scheduler and their step cost."""

    replicas: int
    config: SchedulerConfig
    step_cost: StepCostFn


def run_disaggregated(
    workload: Workload,
    prefill: Pool,
    decode: Pool,
    *,
    router: str,
    kv_bytes_per_token: float,
    link_bandwidth_bytes_per_s: float,
    link_latency_s: float,
    max_steps: int = 5_000_000,
    **engine_kwargs,
) -> DisaggResult:
    """`kv_bytes_per_token`: the KV one transfer link carries per prompt token (the prompt's KV over the links that
    run in parallel)."""
    n = len(workload)
    keys = np.arange(n)
    pre_w = Workload(workload.arrival_s, workload.prompt_tokens, np.ones(n, np.int64),
                     workload.prefix_id, workload.prefix_tokens)
    pre, _ = run_replicas(pre_w, prefill.config, prefill.step_cost, replicas=prefill.replicas, router=router,
                          max_steps=max_steps, **engine_kwargs)
    first_t = np.full(n, np.nan)
    for e in pre:
        idx = np.asarray(e.pending, np.int64)
        first_t[idx] = e.finish_t[idx]
    transfer = link_latency_s + workload.prompt_tokens * kv_bytes_per_token / link_bandwidth_bytes_per_s
    finish_t = first_t.copy()
    need = np.flatnonzero(workload.output_tokens > 1)
    dec: list[Engine] = []
    if need.size:
        dec_w = Workload((first_t + transfer)[need], workload.prompt_tokens[need], workload.output_tokens[need],
                         np.full(need.size, -1, np.int64), np.zeros(need.size, np.int64))
        dec, _ = run_replicas(dec_w, decode.config, decode.step_cost, replicas=decode.replicas,
                              router="least_outstanding",
                              max_steps=max_steps, request_keys=keys[need],
                              initial_computed=workload.prompt_tokens[need], initial_generated=np.ones(need.size),
                              **engine_kwargs)
        for e in dec:
            idx = np.asarray(e.pending, np.int64)
            finish_t[need[idx]] = e.finish_t[idx]
    return DisaggResult(pre, dec, first_t, finish_t, transfer)
