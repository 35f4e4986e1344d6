"""α–β cost of NCCL-style collectives on N GPUs.

M is the per-rank message in bytes (all-reduce: the buffer each rank holds; all-gather:
the gathered output; reduce-scatter: the input; all-to-all: what each rank sends in
total), BW the one-direction link bandwidth per GPU, α the per-hop latency.
  ring all-reduce     2(N−1)/N · M/BW + 2(N−1)·α   (reduce-scatter + all-gather)
  tree all-reduce     2 · M/BW + 2·log2(N)·α        (pipelined double binary tree: better
                                                     latency, ~2× the bandwidth term)
  one-shot all-reduce (N−1) · M/BW + α              (each rank reads every peer's buffer;
                                                     vLLM custom all-reduce for small M)
  all-gather / reduce-scatter  (N−1)/N · M/BW + (N−1)·α
  all-to-all          (N−1)/N · M/BW + (N−1)·α
Sources: SIMULATOR-NOTES §2.5 (GenZ `collective_times.py`, llm-analysis); NCCL
performance docs (bus bandwidth = algbw · 2(N−1)/N for all-reduce).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._util import fmt, non_negative, out, positive
from .errors import ModelInputError

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")
ALGORITHMS = ("ring", "tree", "one_shot")


@dataclass(frozen=True)
class CollectiveResult:
    time_s: float | np.ndarray
    bandwidth_term_s: float | np.ndarray
    latency_term_s: float | np.ndarray
    algorithm_bandwidth_bytes_per_s: float | np.ndarray   # M / time
    bus_bandwidth_bytes_per_s: float | np.ndarray          # NCCL busbw convention
    derivation: str


def collective_time(
    op: str,
    *,
    message_bytes,
    num_gpus,
    link_bandwidth_bytes_per_s,
    latency_s=1e-6,
    algorithm: str = "ring",
) -> CollectiveResult:
    """Time of one collective (vectorized over message size, N, bandwidth, latency)."""
    if op not in OPS:
        raise ModelInputError("op", f"must be one of {', '.join(OPS)}")
    if algorithm not in ALGORITHMS:
        raise ModelInputError("algorithm", f"must be one of {', '.join(ALGORITHMS)}")
    if algorithm != "ring" and op != "all_reduce":
        raise ModelInputError("algorithm", "tree and one_shot apply to all_reduce only")
    m = positive("message_bytes", message_bytes, 1e13)
    n = positive("num_gpus", num_gpus, 100_000)
    if np.any(n != np.round(n)):
        raise ModelInputError("num_gpus", "must be a whole number")
    bw = positive("link_bandwidth_bytes_per_s", link_bandwidth_bytes_per_s, 1e14)
    a = non_negative("latency_s", latency_s, 1.0)
    bw_term, lat_term, formula = _terms(op, algorithm, m, n, bw, a)
    single = n <= 1
    bw_term = np.where(single, 0.0, bw_term)
    lat_term = np.where(single, 0.0, lat_term)
    t = bw_term + lat_term
    safe_t = np.where(t > 0, t, 1.0)
    algbw = np.where(t > 0, m / safe_t, 0.0)
    factor = 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n
    derivation = (f"{algorithm} {op}: {formula} with M = {fmt(m, 'B')}, N = {fmt(n)}, BW = {fmt(bw, 'B/s')}, "
                  f"α = {fmt(a, 's')} → {fmt(bw_term, 's')} + {fmt(lat_term, 's')} = {fmt(t, 's')}")
    return CollectiveResult(out(t), out(bw_term), out(lat_term), out(algbw), out(algbw * factor), derivation)


def _terms(op, algorithm, m, n, bw, a):
    if op == "all_reduce" and algorithm == "ring":
        return 2 * (n - 1) / n * m / bw, 2 * (n - 1) * a, "2(N−1)/N·M/BW + 2(N−1)·α"
    if op == "all_reduce" and algorithm == "tree":
        return 2 * m / bw, 2 * np.log2(np.maximum(n, 1)) * a, "2·M/BW + 2·log2(N)·α"
    if op == "all_reduce":
        return (n - 1) * m / bw, a + 0 * n, "(N−1)·M/BW + α"
    return (n - 1) / n * m / bw, (n - 1) * a, "(N−1)/N·M/BW + (N−1)·α"
