"""Sweep grids and their Pareto frontier: pure code over plain dicts and arrays, beside the engine it drives.

A sweep is the Cartesian product of its grid (knob → list of values) over a base configuration; its points are
cut into chunks of at most 25 (about 16 chunks, so every worker gets some). The parallel degrees are knobs like the
others, so a grid can hold layouts vLLM refuses (expert_parallel ≠ tensor_parallel × data_parallel, an EP that does
not divide the experts, EP on a dense model): the screen and the engine check each point's layout
(modeling.parallel.parallelism) and such a point is infeasible with the reason, like one whose weights do not fit.

Two-stage sweeps (the default) simulate only the candidates the closed-form screen (engine/screen.py) puts near
the frontier, chosen by select_candidates:
- plausible: feasible and, by the screen, within SCREEN_SLACK × the SLO (the screen is an estimate: a point just
  past the SLO boundary may meet it in the engine);
- near the frontier: a point's dominance factor d = max over other points q of min(cost_p / cost_q,
  ttft_p / ttft_q) is 1 on the (cost, p99 TTFT) Pareto frontier and says by how much every other point would
  have to improve in both figures to dominate it; candidates are the points with d ≤ 1 + SCREEN_EPSILON, taken
  among the screen's SLO-meeting points and among the plausible ones (so a cheap point that only plausibly meets
  the SLO cannot hide the ones that surely do);
- points with the same screen figures as an earlier one rank (1 + SCREEN_EPSILON) × their d, behind distinct ones;
- then the next-lowest d up to `keep` (2 % of the grid, at least MIN_SIMULATED); never more than `cap` (10 % of the
  grid, at least `keep`, at most MAX_SIMULATED), lowest d first.

Disaggregated layouts. A grid with `prefill_replicas` and `decode_replicas` (always both) searches prefill/decode
disaggregated layouts beside the colocated ones: its points are the colocated grid (every knob but those two and
`kv_transfer` and the pools' TPs) followed by the disaggregated grid (every knob but `replicas`, which a P/D layout
does not have: its replicas are its prefill + decode pools). So no combination is a duplicate or half a layout. Each
pool runs the point's tensor_parallel unless `prefill_tensor_parallel` / `decode_tensor_parallel` set its own (PP,
DP and EP are the point's; the engine builds each pool's setup, simulate.Disaggregation.pool_setups). `kv_transfer`
picks the link the KV cache crosses from a prefill to a decode replica (KV_LINKS), mapped to the engine's
Disaggregation link bandwidth and latency.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

GRID_KEYS = ("gpu", "tensor_parallel", "pipeline_parallel", "data_parallel", "expert_parallel", "replicas",
             "max_num_seqs", "max_num_batched_tokens", "chunked_prefill", "long_prefill_token_threshold", "router",
             "weight_dtype", "prefill_replicas", "decode_replicas", "kv_transfer", "prefill_tensor_parallel",
             "decode_tensor_parallel")
PD_KEYS = ("prefill_replicas", "decode_replicas")  # a grid has both or neither (SweepInput.validate_grid)
POOL_TP_KEYS = ("prefill_tensor_parallel", "decode_tensor_parallel")
PD_ONLY_KEYS = (*PD_KEYS, "kv_transfer", *POOL_TP_KEYS)  # knobs of the disaggregated points only
COLOCATED_ONLY_KEYS = ("replicas",)
# The KV cache's link from a prefill to a decode replica, per GPU (every TP rank sends its own shard), one direction:
# - nvlink: inside one node, the GPU's own interconnect, half its bidirectional figure (the engine's default,
#   simulate.simulate): 450 GB/s on H100/H200 SXM (NVLink 4, 18 links, 900 GB/s total: NVIDIA H100 and H200
#   datasheets), 900 GB/s on B200 (NVLink 5). Latency 10 µs, the engine's default.
# - rdma: across nodes, one 400 Gb/s NIC per GPU (InfiniBand NDR / ConnectX-7: 400 Gb/s = 50 GB/s per direction,
#   NVIDIA ConnectX-7 and Quantum-2 datasheets; DGX H100/H200 have one per GPU). Latency 400 µs per transfer, the
#   fixed part of Mooncake's measured KV transfers between a vLLM v1 prefiller and decoder over RDMA (kvcache-ai.github.io
#   /Mooncake/performance/vllm-v1-support-benchmark.html: 20 MB in 0.54 ms, 290 MB in 2.51 ms, so 137 GB/s and
#   0.54 − 20 MB / 137 GB/s = 0.39 ms fixed; that line gives 33 ms for their 4.50 GB, measured 31.65 ms). A
#   one-sided RDMA write is a few µs on the wire; the connector's handshake and notification are the rest.
KV_LINKS: dict[str, dict[str, float | None]] = {"nvlink": {"link_bandwidth_gb_per_s": None, "link_latency_us": 10.0},
                                                  "rdma": {"link_bandwidth_gb_per_s": 50.0, "link_latency_us": 400.0}}
MAX_POINTS = 10_000
SIMULATED_FRACTION = 0.02   # two-stage: the engine runs on about this share of the grid
SIMULATED_FRACTION_MAX = 0.1  # ... and on at most this share (points within SCREEN_EPSILON of the frontier)
MIN_SIMULATED = 16          # ... at least this many points (a grid this small is simulated whole)
MAX_SIMULATED = 160         # ... and never more than this many
SCREEN_SLACK = 1.5          # a point the screen puts within 1.5 × the SLO may still meet it
SCREEN_EPSILON = 0.25       # points within 25 % (both figures) of the screen's frontier are simulated


def _parts(grid: dict) -> list[dict]:
    """The products a grid is made of: the colocated grid, then (with P/D knobs) the disaggregated one."""
    if not any(k in grid for k in PD_KEYS):
        return [grid]
    return [{k: v for k, v in grid.items() if k not in PD_ONLY_KEYS},
            {k: v for k, v in grid.items() if k not in COLOCATED_ONLY_KEYS}]


def _product_size(grid: dict) -> int:
    return math.prod(len(v) for v in grid.values()) if grid else 1


def grid_size(grid: dict) -> int:
    return sum(_product_size(part) for part in _parts(grid))


def is_disaggregated(values: dict) -> bool:
    return "prefill_replicas" in values


def grid_points(grid: dict) -> list[dict]:
    """Every combination, knobs in GRID_KEYS order, so a point's index is stable for a given grid; the colocated
    points first, then the disaggregated ones (module docstring)."""
    points = []
    for part in _parts(grid):
        keys = [k for k in GRID_KEYS if k in part]
        points += [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(part[k] for k in keys))]
    return points


def grid_point(grid: dict, index: int) -> dict:
    """The point grid_points(grid)[index], without building the others."""
    for part in _parts(grid):
        size = _product_size(part)
        if index < size:
            break
        index -= size
    keys = [k for k in GRID_KEYS if k in part]
    values = {}
    for k in reversed(keys):  # the last knob varies fastest
        index, j = divmod(index, len(part[k]))
        values[k] = part[k][j]
    return {k: values[k] for k in keys}


def chunk_size(total: int) -> int:
    return max(1, min(25, math.ceil(total / 16)))


def chunk_bounds(total: int, chunk: int) -> tuple[int, int]:
    size = chunk_size(total)
    return chunk * size, min(total, (chunk + 1) * size)


def point_params(request: dict, grid_values: dict) -> dict:
    """The base request with one point's knob values laid over it; a disaggregated point's pools and KV link become
    the engine request's `disaggregation` (and its `replicas`, which the engine ignores then, is 1)."""
    params = {**{k: v for k, v in request.items() if k != "grid"}, **grid_values}
    if is_disaggregated(params):
        kv = params.pop("kv_transfer", "nvlink")
        link = {k: v for k, v in KV_LINKS[kv].items() if v is not None}
        pool_tp = {k: params.pop(k) for k in POOL_TP_KEYS if k in params}
        params["disaggregation"] = {"prefill_replicas": params.pop("prefill_replicas"),
                                    "decode_replicas": params.pop("decode_replicas"), "kv_transfer": kv, **link,
                                    **pool_tp}
        params["replicas"] = 1
    return params


def pool_tensor_parallel(params: dict) -> dict[str, int]:
    """Each P/D pool's TP ({"prefill": .., "decode": ..}): its own where given, else the deployment's tensor_parallel
    (params with a `disaggregation`, as point_params makes them or a design answer has them)."""
    d, tp = params["disaggregation"], params.get("tensor_parallel", 1)
    return {pool: d.get(f"{pool}_tensor_parallel", tp) for pool in ("prefill", "decode")}


def layout_gpus(params: dict) -> int:
    """GPUs of one point's deployment (params from point_params): its replicas × TP, or each P/D pool's replicas ×
    its TP, × PP × DP."""
    d = params.get("disaggregation")
    replicas_tp = sum(d[f"{pool}_replicas"] * tp for pool, tp in pool_tensor_parallel(params).items()) if d else \
        params.get("replicas", 1) * params.get("tensor_parallel", 1)
    return replicas_tp * params.get("pipeline_parallel", 1) * params.get("data_parallel", 1)


def pareto_frontier(points: list[dict]) -> list[dict]:
    """Points not dominated in (usd_per_million_tokens, p99 TTFT), both minimised; sorted by cost."""
    ordered = sorted(points, key=lambda p: (p["metrics"]["usd_per_million_tokens"], p["metrics"]["ttft_s"]["p99"]))
    frontier: list[dict] = []
    best_ttft = math.inf
    for p in ordered:
        ttft = p["metrics"]["ttft_s"]["p99"]
        if ttft < best_ttft:
            frontier.append(p)
            best_ttft = ttft
    return frontier


def dominance_factor(cost: np.ndarray, ttft: np.ndarray) -> np.ndarray:
    """d(p) = max over q of min(cost_p / cost_q, ttft_p / ttft_q), q ranging over all points (p included, so d ≥ 1;
    d = 1 exactly on the Pareto frontier). Found by bisection on d per point: q dominates p by a factor x when
    cost_q · x ≤ cost_p and ttft_q · x ≤ ttft_p, i.e. when the least TTFT among points costing at most cost_p / x
    is at most ttft_p / x — one sorted search per step for all points (positive figures)."""
    order = np.argsort(cost, kind="stable")
    c_sorted = cost[order]
    least_ttft = np.minimum.accumulate(ttft[order])

    def dominated(x: np.ndarray) -> np.ndarray:
        k = np.searchsorted(c_sorted, cost / x * (1 + 1e-12), side="right")
        return (k > 0) & (least_ttft[np.maximum(k - 1, 0)] <= ttft / x * (1 + 1e-12))

    lo = np.ones_like(cost)
    hi = np.full_like(cost, max(float(cost.max() / cost.min()), float(ttft.max() / ttft.min()), 1.0) * 2)
    for _ in range(50):
        mid = np.sqrt(lo * hi)
        yes = dominated(mid)
        lo, hi = np.where(yes, mid, lo), np.where(yes, hi, mid)
    return lo


def select_candidates(screen, slo_ttft_s: float, slo_tpot_s: float, *, keep: int, cap: int) -> list[int]:
    """Indices (ascending) of the points the engine should simulate, from a screen (engine.screen.Screen):
    see the module docstring. With no plausible point, the feasible points nearest to meeting the SLO."""
    ok = screen.feasible
    plausible = ok & (screen.ttft_p99_s <= SCREEN_SLACK * slo_ttft_s) & (screen.tpot_p99_s <= SCREEN_SLACK * slo_tpot_s)
    n = len(ok)
    rank = np.full(n, np.inf)
    if plausible.any():
        for subset in (plausible, screen.meets_slo):
            if subset.any():
                where = np.nonzero(subset)[0]
                d = dominance_factor(screen.usd_per_million_tokens[where], screen.ttft_p99_s[where])
                rank[where] = np.minimum(rank[where], d)
    elif ok.any():
        excess = np.maximum(screen.ttft_p99_s / slo_ttft_s, screen.tpot_p99_s / slo_tpot_s)
        rank[ok] = 1.0 + excess[ok]
    # points the screen cannot tell apart (knobs it does not model, batch limits past the KV ceiling) queue behind
    # the first of their kind, so the places go to different configurations first
    figures = np.round(np.stack([screen.usd_per_million_tokens, screen.ttft_p99_s, screen.tpot_p99_s], axis=1), 9)
    _, first = np.unique(np.where(np.isfinite(figures), figures, -1.0), axis=0, return_index=True)
    repeat = np.ones(n, bool)
    repeat[first] = False
    rank = np.where(repeat, rank * (1.0 + SCREEN_EPSILON), rank)
    near = np.nonzero(rank <= 1.0 + SCREEN_EPSILON)[0]
    take = min(cap, max(keep, len(near)))
    chosen = np.argsort(rank, kind="stable")[:take]
    return sorted(int(i) for i in chosen if np.isfinite(rank[i]))


def simulated_bounds(total: int) -> tuple[int, int]:
    """(keep, cap): how many points a two-stage sweep of `total` points simulates at least and at most."""
    keep = min(total, MAX_SIMULATED, max(MIN_SIMULATED, math.ceil(SIMULATED_FRACTION * total)))
    return keep, max(keep, min(MAX_SIMULATED, math.ceil(SIMULATED_FRACTION_MAX * total)))
