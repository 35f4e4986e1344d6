"""Judges a load run recorded by drive.py: per stage and endpoint, the ceiling, the sustained rate and the ratios.

Usage: summarize.py <results.json>; exit status 0 always (the figures are the output, not a gate).

- A stage's throughput is the requests that completed inside its measured window divided by the window.
- An endpoint passes a stage with 0 errors and p99 < LIMIT_MS; with fewer than MIN_SAMPLES samples a p99 is one or
  two requests, so the endpoint is judged on p95 instead, and the table says so ("p95*" and the sample count).
- A stage passes when every endpoint in it passes.
- The ceiling of a scenario is its highest stage throughput; the driver stops raising the concurrency once two
  stages in a row have not beaten the best earlier stage by PLATEAU_GAIN, from PLATEAU_FROM connections on
  (`still_rising`). When the stages run out before that, the report says the ceiling may be a lower bound.
- The sustained rate is the highest throughput of a stage that passed with every lower one.
"""

from __future__ import annotations

import json
import math
import sys

LIMIT_MS = 100.0
MIN_SAMPLES = 200
PLATEAU_GAIN = 0.05
# gunicorn's workers share one listening socket, and the worker that wakes first can take every new connection of a
# stage: its stage is served at one process's speed, and the same worker can win two stages in a row (the term page:
# 617.0, 587.3 and 583.7 req/s at 1, 2 and 4 connections, then 1,170+ in other runs). So no plateau counts below 16
# connections, where a sample found the connections on all four workers (benchmarks/README.md, "Connections and
# workers").
PLATEAU_FROM = 16
MINIMAL = "ping"
MIX = "mix"
MIX_TARGET_RPS = 150.0
# Single-endpoint scenarios and the fraction of the minimal view's ceiling each should reach.
ENDPOINT_TARGETS = {"chapter": 0.3, "term": 0.3, "chapters": 0.3, "glossary": 0.3, "due": 0.1, "review": 0.1}


def percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not ordered:
        return 0.0
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def still_rising(rates: list[float], concurrency: int) -> bool:
    """False once two stages in a row have not beaten the best stage before them by PLATEAU_GAIN, the last of them
    (at ``concurrency`` connections) at PLATEAU_FROM connections or more."""
    best, flat = 0.0, 0
    for rate in rates:
        flat = 0 if rate >= best * (1 + PLATEAU_GAIN) else flat + 1
        best = max(best, rate)
    return flat < 2 or concurrency < PLATEAU_FROM


def endpoint_stats(name: str, record: dict, seconds: float) -> dict:
    ordered = sorted(record["ms"])
    count, errors = len(ordered), sum(record["errors"].values())
    judged_by = "p99" if count >= MIN_SAMPLES else "p95"
    judged_ms = percentile(ordered, 99 if judged_by == "p99" else 95)
    return {"name": name, "count": count, "rps": count / seconds, "p50": percentile(ordered, 50),
            "p95": percentile(ordered, 95), "p99": percentile(ordered, 99), "errors": errors,
            "error_kinds": record["errors"], "judged_by": judged_by,
            "passed": errors == 0 and count > 0 and judged_ms < LIMIT_MS}


def stage_stats(stage: dict) -> dict:
    seconds = stage["seconds"]
    endpoints = [endpoint_stats(name, record, seconds) for name, record in sorted(stage["endpoints"].items())]
    every = sorted(ms for record in stage["endpoints"].values() for ms in record["ms"])
    return {"concurrency": stage["concurrency"], "seconds": seconds, "rps": len(every) / seconds,
            "p50": percentile(every, 50), "p95": percentile(every, 95), "p99": percentile(every, 99),
            "errors": sum(e["errors"] for e in endpoints), "endpoints": endpoints,
            "driver_cpu": stage.get("driver_cpu_s", 0.0) / seconds,
            "passed": bool(endpoints) and all(e["passed"] for e in endpoints)}


def ceiling(stages: list[dict]) -> dict | None:
    return max(stages, key=lambda stage: stage["rps"], default=None)


def sustained(stages: list[dict]) -> dict | None:
    """The stage with the highest rate among those that passed with every lower stage (by concurrency): in a
    closed loop a higher concurrency usually delivers more, but not always (a busier stage can deliver less)."""
    held = []
    for stage in sorted(stages, key=lambda stage: stage["concurrency"]):
        if not stage["passed"]:
            break
        held.append(stage)
    return max(held, key=lambda stage: stage["rps"], default=None)


def summarize(results: dict) -> dict:
    scenarios = {name: [stage_stats(stage) for stage in stages] for name, stages in results["scenarios"].items()}
    top = ceiling(scenarios.get(MINIMAL, []))
    minimal = top["rps"] if top else 0.0
    held = sustained(scenarios.get(MIX, []))
    ratios = {}
    for name, target in ENDPOINT_TARGETS.items():
        best = ceiling(scenarios.get(name, []))
        if best is not None and minimal:
            ratios[name] = {"ceiling": best["rps"], "ratio": best["rps"] / minimal, "target": target,
                            "met": best["rps"] / minimal >= target}
    return {"scenarios": scenarios, "minimal_ceiling": minimal,
            "mix_sustained": held["rps"] if held else 0.0,
            "mix_sustained_concurrency": held["concurrency"] if held else None,
            "mix_ratio": (held["rps"] / minimal) if held and minimal else 0.0, "endpoint_ratios": ratios}


def failure_reason(endpoint: dict) -> str:
    if endpoint["errors"]:
        return ", ".join(f"{kind} x{count}" for kind, count in sorted(endpoint["error_kinds"].items()))
    if not endpoint["count"]:
        return "no samples"
    return f"{endpoint['judged_by']} >= {LIMIT_MS:.0f} ms"


def report(results: dict) -> list[str]:
    summary = summarize(results)
    lines = [f"run: {json.dumps(results.get('meta', {}), sort_keys=True)}"]
    for name, stages in summary["scenarios"].items():
        top = ceiling(stages)
        rising = still_rising([stage["rps"] for stage in stages], stages[-1]["concurrency"])
        lines.append(f"\n== {name} ==")
        lines.append(f"{'conc':>5} {'secs':>5} {'req/s':>8} {'p50':>6} {'p95':>6} {'p99':>6} {'errors':>6} "
                     f"{'driver CPU':>10}  verdict")
        for stage in stages:
            slow = [f"{e['name']} ({failure_reason(e)})" for e in stage["endpoints"] if not e["passed"]]
            verdict = "PASS" if stage["passed"] else "FAIL: " + "; ".join(slow)
            lines.append(f"{stage['concurrency']:>5} {stage['seconds']:>5.0f} {stage['rps']:>8.1f} "
                         f"{stage['p50']:>6.1f} {stage['p95']:>6.1f} {stage['p99']:>6.1f} {stage['errors']:>6} "
                         f"{stage['driver_cpu']:>9.0%}  {verdict}")
            if len(stage["endpoints"]) > 1:
                for e in stage["endpoints"]:
                    mark = "p99" if e["judged_by"] == "p99" else f"p95* (n={e['count']} < {MIN_SAMPLES})"
                    lines.append(f"      {e['name'][:44]:44} n={e['count']:>5} {e['rps']:>7.1f}/s "
                                 f"p50 {e['p50']:>6.1f} p95 {e['p95']:>6.1f} p99 {e['p99']:>6.1f} "
                                 f"err {e['errors']:>3}  judged on {mark}: {'pass' if e['passed'] else 'FAIL'}")
        held = sustained(stages)
        lines.append(f"ceiling {top['rps']:.1f} req/s at concurrency {top['concurrency']}"
                     + ("" if not rising else " (the stages ran out before two stages in a row gained < 5 %: "
                                             "may be a lower bound)") if top else
                     "no stages")
        lines.append(f"sustained {held['rps']:.1f} req/s at concurrency {held['concurrency']}" if held else
                     "sustained: none (the lowest stage failed)")
    minimal = summary["minimal_ceiling"]
    lines.append("\n== ratios to the minimal view's ceiling "
                 f"({minimal:.1f} req/s, {MINIMAL}, closed loop, same run) ==")
    lines.append(f"learner mix sustained {summary['mix_sustained']:.1f} req/s = {summary['mix_ratio']:.3f} x minimal "
                 f"(target >= {MIX_TARGET_RPS:.0f} req/s: "
                 f"{'met' if summary['mix_sustained'] >= MIX_TARGET_RPS else 'not met'})")
    for name, ratio in summary["endpoint_ratios"].items():
        lines.append(f"{name:9} ceiling {ratio['ceiling']:>8.1f} req/s = {ratio['ratio']:.3f} x minimal "
                     f"(target >= {ratio['target']}: {'met' if ratio['met'] else 'not met'})")
    return lines


def main(path: str) -> int:
    with open(path) as handle:
        print("\n".join(report(json.load(handle))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
