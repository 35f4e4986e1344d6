"""Sweep grids and their Pareto frontier: pure code over plain dicts, beside the engine it drives.

A sweep is the Cartesian product of its grid (knob → list of values) over a base configuration; its points are
cut into chunks of at most 25 (about 16 chunks, so every worker gets some).
"""

from __future__ import annotations

import itertools
import math

GRID_KEYS = ("gpu", "tensor_parallel", "replicas", "max_num_seqs", "max_num_batched_tokens", "chunked_prefill",
             "router", "weight_dtype")
MAX_POINTS = 10_000


def grid_size(grid: dict) -> int:
    return math.prod(len(v) for v in grid.values()) if grid else 1


def grid_points(grid: dict) -> list[dict]:
    """Every combination, knobs in GRID_KEYS order, so a point's index is stable for a given grid."""
    keys = [k for k in GRID_KEYS if k in grid]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(grid[k] for k in keys))]


def chunk_size(total: int) -> int:
    return max(1, min(25, math.ceil(total / 16)))


def chunk_bounds(total: int, chunk: int) -> tuple[int, int]:
    size = chunk_size(total)
    return chunk * size, min(total, (chunk + 1) * size)


def point_params(request: dict, grid_values: dict) -> dict:
    """The base request with one point's knob values laid over it."""
    return {**{k: v for k, v in request.items() if k != "grid"}, **grid_values}


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
