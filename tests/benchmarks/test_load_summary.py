"""benchmarks/load/summarize.py on a small recorded sample: stage verdicts, the ceiling, the sustained rate, ratios.

Every figure below is derived by hand from the sample (nearest-rank percentiles; a stage's rate is its samples over
its 10 s window).
"""

import importlib.util
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location(
    "load_summarize", Path(__file__).resolve().parents[2] / "benchmarks" / "load" / "summarize.py")
summarize = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(summarize)


def endpoint(count: int, ms: float = 10.0, slow: int = 0, slow_ms: float = 150.0, errors: dict | None = None):
    """count samples: count - slow of them at ms, slow of them at slow_ms."""
    return {"ms": [ms] * (count - slow) + [slow_ms] * slow, "errors": errors or {}}


def stage(concurrency: int, **endpoints):
    return {"concurrency": concurrency, "seconds": 10.0, "driver_cpu_s": 1.0,
            "endpoints": {name.replace("_", " "): record for name, record in endpoints.items()}}


SAMPLE = {
    "meta": {"note": "hand-made sample"},
    "scenarios": {
        # 100, 200, 205, 204 req/s: the last two stages gain less than 5 % on 200, the last at 16 connections
        # (summarize.PLATEAU_FROM), so the search stopped there.
        "ping": [stage(2, ping=endpoint(1000)), stage(4, ping=endpoint(2000)), stage(8, ping=endpoint(2050)),
                 stage(16, ping=endpoint(2040, slow=30))],
        "mix": [
            # 250 + 250 + 100 samples = 60 req/s. The practice endpoint has 100 < 200 samples: its p99 (rank 99)
            # is 150 ms, its p95 (rank 95) is 10 ms, so it is judged on p95 and passes.
            stage(1, chapter=endpoint(250), due=endpoint(250), practice=endpoint(100, slow=2)),
            # 400 + 400 = 80 req/s; the due queue has 5 of 400 at 150 ms: p99 (rank 396) is 150 ms -> FAIL.
            stage(2, chapter=endpoint(400), due=endpoint(400, slow=5)),
            # 500 + 500 = 100 req/s and passes, but a lower stage failed, so it is not sustained.
            stage(4, chapter=endpoint(500), due=endpoint(500)),
            # one 429 fails the stage whatever the latencies.
            stage(8, chapter=endpoint(500, errors={"429": 1}), due=endpoint(500)),
        ],
        "chapter": [stage(4, chapter=endpoint(700))],  # 70 req/s = 0.341 x 205
        "due": [stage(4, due=endpoint(150))],  # 15 req/s = 0.073 x 205
    },
}


def test_percentile_is_nearest_rank():
    values = [float(n) for n in range(1, 101)]
    assert summarize.percentile(values, 99) == 99.0
    assert summarize.percentile(values, 50) == 50.0
    assert summarize.percentile([], 99) == 0.0


@pytest.mark.parametrize(("rates", "concurrency", "rising"), [
    ([100, 200], 16, True),
    ([100, 200, 205, 204], 16, False),  # two stages in a row under 210 (200 + 5 %)
    ([100, 200, 205, 204], 8, True),  # the same, but below PLATEAU_FROM (16) connections: not yet a plateau
    ([100, 200, 205, 230], 16, True),  # 230 >= 1.05 x 205 starts the count again
    ([100, 200, 150, 300], 16, True),
])
def test_still_rising(rates, concurrency, rising):
    assert summarize.still_rising(rates, concurrency) is rising


def test_stage_verdicts():
    mix = [summarize.stage_stats(s) for s in SAMPLE["scenarios"]["mix"]]
    assert [s["passed"] for s in mix] == [True, False, True, False]
    assert [s["rps"] for s in mix] == [60.0, 80.0, 100.0, 100.0]
    practice = next(e for e in mix[0]["endpoints"] if e["name"] == "practice")
    assert (practice["judged_by"], practice["p95"], practice["p99"], practice["passed"]) == ("p95", 10.0, 150.0, True)
    due = next(e for e in mix[1]["endpoints"] if e["name"] == "due")
    assert (due["judged_by"], due["p99"], due["passed"]) == ("p99", 150.0, False)
    assert mix[3]["errors"] == 1


def test_sustained_stops_below_the_first_failing_stage():
    mix = [summarize.stage_stats(s) for s in SAMPLE["scenarios"]["mix"]]
    assert summarize.sustained(mix)["concurrency"] == 1  # stage 4 passes, but stage 2 below it failed
    assert summarize.ceiling(mix)["rps"] == 100.0


def test_sustained_is_the_highest_rate_of_the_passing_stages():
    # Closed loop on a busy machine: 4 connections delivered less than 2; both passed, 8 failed.
    stages = [{"concurrency": 2, "passed": True, "rps": 267.0}, {"concurrency": 4, "passed": True, "rps": 160.0},
              {"concurrency": 8, "passed": False, "rps": 300.0}, {"concurrency": 16, "passed": True, "rps": 310.0}]
    assert summarize.sustained(stages)["rps"] == 267.0
    assert summarize.sustained([{"concurrency": 1, "passed": False, "rps": 50.0}]) is None


def test_ratios_to_the_minimal_view():
    result = summarize.summarize(SAMPLE)
    assert result["minimal_ceiling"] == 205.0
    assert result["mix_sustained"] == 60.0
    assert result["mix_ratio"] == pytest.approx(60 / 205)
    assert result["endpoint_ratios"]["chapter"] == {"ceiling": 70.0, "ratio": pytest.approx(70 / 205), "target": 0.3,
                                                    "met": True}
    assert result["endpoint_ratios"]["due"]["met"] is False
    assert "term" not in result["endpoint_ratios"]  # not run: no ratio rather than a zero


def test_report_prints_the_verdicts_and_ratios():
    text = "\n".join(summarize.report(SAMPLE))
    assert "learner mix sustained 60.0 req/s = 0.293 x minimal" in text
    assert "chapter   ceiling     70.0 req/s = 0.341 x minimal (target >= 0.3: met)" in text
    assert "due       ceiling     15.0 req/s = 0.073 x minimal (target >= 0.1: not met)" in text
    assert "FAIL: due (p99 >= 100 ms)" in text
    assert "FAIL: chapter (429 x1)" in text
    assert "p95* (n=100 < 200)" in text
    assert "ceiling 205.0 req/s at concurrency 8\n" in text  # the plateau was reached: not a lower bound
