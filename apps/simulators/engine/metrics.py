"""Request latencies, throughput, goodput, invariants and plot-ready series from finished engines.

TTFT = first token − arrival; TPOT = (finish − first token) / (output − 1), the mean
inter-token latency of one request (0 for one-token outputs); E2E = finish − arrival.
Throughput and goodput divide by the makespan (first arrival → last finish). Goodput
counts requests meeting both SLOs (the DistServe definition).
Invariants: tokens are conserved (Σ computed tokens = Σ (prompt + output − 1) + tokens
recomputed after preemption − prefix-cache hits), every request finished, and Little's
law: the time-average number of requests in the system, sampled at each step, ≈
throughput × mean latency (the sample misses the part of a step a request arrives
during, hence a tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import Engine

MAX_SERIES_POINTS = 500
LITTLE_TOLERANCE = 0.05


@dataclass(frozen=True)
class SLO:
    ttft_s: float = 1.0
    tpot_s: float = 0.1


def stats(x: np.ndarray) -> dict:
    x = x[np.isfinite(x)]
    if x.size == 0:
        return {"p50": 0.0, "p90": 0.0, "p99": 0.0, "mean": 0.0, "max": 0.0}
    p50, p90, p99 = np.percentile(x, [50, 90, 99])
    return {"p50": float(p50), "p90": float(p90), "p99": float(p99), "mean": float(x.mean()), "max": float(x.max())}


def histogram(x: np.ndarray, bins: int = 30) -> dict:
    x = x[np.isfinite(x)]
    if x.size == 0:
        return {"edges": [0.0, 1.0], "counts": [0]}
    hi = float(x.max()) or 1.0
    counts, edges = np.histogram(x, bins=bins, range=(0.0, hi))
    return {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}


def latencies(arrival: np.ndarray, first_t: np.ndarray, finish_t: np.ndarray, output: np.ndarray):
    ttft = first_t - arrival
    e2e = finish_t - arrival
    tpot = np.where(output > 1, (finish_t - first_t) / np.maximum(output - 1, 1), 0.0)
    return ttft, tpot, e2e


def request_summary(arrival, first_t, finish_t, output, slo: SLO) -> dict:
    ttft, tpot, e2e = latencies(arrival, first_t, finish_t, output)
    finished = np.isfinite(finish_t)
    makespan = float(np.nanmax(finish_t) - arrival.min()) if finished.any() else 0.0
    span = max(makespan, 1e-12)
    good = finished & (ttft <= slo.ttft_s) & (tpot <= slo.tpot_s)
    n_out = float(output[finished].sum())
    return {
        "num_requests": int(arrival.size),
        "completed": int(finished.sum()),
        "makespan_s": makespan,
        "ttft_s": stats(ttft),
        "tpot_s": stats(tpot[output > 1]),
        "e2e_s": stats(e2e),
        "throughput": {
            "requests_per_s": float(finished.sum() / span),
            "output_tokens_per_s": n_out / span,
        },
        "goodput": {
            "requests_per_s": float(good.sum() / span),
            "fraction": float(good.sum() / max(arrival.size, 1)),
            "slo": {"ttft_s": slo.ttft_s, "tpot_s": slo.tpot_s},
        },
        "histograms": {"ttft_s": histogram(ttft), "tpot_s": histogram(tpot[output > 1])},
        "_mean_e2e": float(e2e[finished].mean()) if finished.any() else 0.0,
    }


def engine_stats(e: Engine) -> dict:
    idx = np.asarray(e.pending, np.int64)
    expected = int((e.prompt[idx] + e.target[idx] - 1 - e.initial_computed[idx]).sum()) + e.tokens_lost - e.hit_tokens
    return {
        "requests": int(idx.size),
        "steps": e.steps,
        "busy_s": e.busy_s,
        "preemptions": int(e.preempted[idx].sum()),
        "prefix_cache_hit_rate": e.hit_tokens / e.lookup_tokens if e.lookup_tokens else 0.0,
        "hit_tokens": e.hit_tokens,
        "lookup_tokens": e.lookup_tokens,
        "mean_batch_size": float(np.mean([s[2] for s in e.series])) if e.series else 0.0,
        "kv_blocks_total": e.cfg.num_blocks,
        "tokens_computed": e.tokens_computed,
        "tokens_expected": expected,
        "all_finished": bool(e.done[idx].all()) if idx.size else True,
        "tokens_generated_ok": bool((e.generated[idx] == e.target[idx]).all()) if idx.size else True,
        "output_tokens": int(e.target[idx].sum()),
    }


def series(engines: list[Engine], t0: float, t1: float, points: int = MAX_SERIES_POINTS) -> dict:
    """Queue depth and running batch summed over engines, KV usage averaged, sampled on one grid."""
    grid = np.linspace(t0, max(t1, t0 + 1e-9), points)
    queue = np.zeros(points)
    running = np.zeros(points)
    kv = np.zeros(points)
    for e in engines:
        if not e.series:
            continue
        arr = np.asarray(e.series, dtype=float)
        at = np.searchsorted(arr[:, 0], grid, side="right") - 1
        valid = at >= 0
        pick = np.clip(at, 0, None)
        queue += np.where(valid, arr[pick, 1], 0.0)
        running += np.where(valid, arr[pick, 2], 0.0)
        kv += np.where(valid, arr[pick, 3] / max(e.cfg.num_blocks, 1), 0.0)
    kv /= max(len(engines), 1)
    return {
        "t_s": [round(float(t), 6) for t in grid],
        "queue_depth": [float(v) for v in queue],
        "running": [float(v) for v in running],
        "kv_usage": [round(float(v), 6) for v in kv],
    }


def step_log(engine: Engine, steps: int) -> list[dict]:
    """The first `steps` steps of one engine as its scheduler ran them: a stepper can replay them one at a time."""
    rows = engine.series[:steps]
    after = [row[5] for row in engine.series[1:steps + 1]]
    if len(after) < len(rows):
        after.append(engine.tokens_computed)
    return [{"step": i + 1, "end_s": round(end, 9), "duration_s": round(dt, 9), "waiting": waiting, "running": running,
             "kv_blocks_used": used, "tokens": done - before,
             "admitted": [{"request": r, "prompt_tokens": p} for r, p in engine.admitted.get(i + 1, ())],
             "held_back": _held_back(engine.held_back.get(i + 1))}
            for i, ((end, waiting, running, used, dt, before), done) in enumerate(zip(rows, after, strict=True))]


def _held_back(row: tuple[int, int, int, int] | None) -> dict | None:
    if row is None:
        return None
    request, tokens, needed, free = row
    return {"request": request, "tokens": tokens, "blocks_needed": needed, "blocks_free": free}


def invariants(stats_list: list[dict], area: float, summary: dict) -> dict:
    computed = sum(s["tokens_computed"] for s in stats_list)
    expected = sum(s["tokens_expected"] for s in stats_list)
    span = max(summary["makespan_s"], 1e-12)
    concurrency = area / span
    little = summary["throughput"]["requests_per_s"] * summary["_mean_e2e"]
    rel = abs(concurrency - little) / little if little > 0 else 0.0
    return {
        "tokens_conserved": computed == expected and all(s["tokens_generated_ok"] for s in stats_list),
        "tokens_computed": computed,
        "tokens_expected": expected,
        "all_finished": all(s["all_finished"] for s in stats_list),
        "littles_law": {
            "mean_concurrency": concurrency,
            "throughput_times_latency": little,
            "relative_error": rel,
            "tolerance": LITTLE_TOLERANCE,
            "ok": rel <= LITTLE_TOLERANCE,
        },
    }
