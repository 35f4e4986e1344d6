"""Two-stage sweeps: the closed-form screen, the choice of candidates near its frontier, and the job that simulates
only them (the frontier and recommendation from engine verdicts)."""

import numpy as np
import pytest
from api_helpers import load_real_catalog
from test_sweeps_api import HEAVY, URL, no_send, sweep_body  # noqa: F401 (fixtures)

from apps.simulators import sweeps
from apps.simulators.engine.engine import SimulationError, WorkLimit
from apps.simulators.engine.grid import (
    dominance_factor,
    grid_point,
    grid_points,
    pareto_frontier,
    point_params,
    select_candidates,
    simulated_bounds,
)
from apps.simulators.engine.metrics import SLO
from apps.simulators.engine.screen import screen_points
from apps.simulators.engine.simulate import ServingSetup, check_fits, kv_blocks, simulate
from apps.simulators.modeling import ModelInputError, load_gpus, load_models, step_time
from apps.simulators.models import SweepJob, SweepStatus
from apps.simulators.simulation import SETUP_FIELDS, workload_build

MODELS, GPUS = load_models(), load_gpus()


# ---------------------------------------------------------------- pure: grid, dominance, bounds

def test_dominance_factor_by_hand():
    cost = np.array([1.0, 2.0, 4.0, 3.0, 2.2])
    ttft = np.array([4.0, 2.0, 1.0, 3.0, 2.2])
    # The first three are the frontier (d = 1). (3, 3): (2, 2) beats it by min(3/2, 3/2) = 1.5 in both figures;
    # (1, 4) only by min(3, 0.75) = 0.75 and (4, 1) by 0.75, so d = 1.5. (2.2, 2.2): by (2, 2), min(1.1, 1.1) = 1.1.
    assert dominance_factor(cost, ttft) == pytest.approx([1.0, 1.0, 1.0, 1.5, 1.1], rel=1e-9)


def test_grid_point_is_the_expansion_at_that_index():
    grid = {"gpu": ["a", "b"], "tensor_parallel": [1, 2, 4], "max_num_seqs": [8, 16]}
    assert [grid_point(grid, i) for i in range(12)] == grid_points(grid)


@pytest.mark.parametrize(("total", "bounds"), [
    (10, (10, 10)),          # a small grid: all of it
    (100, (16, 16)),         # 2 % = 2 and 10 % = 10, both below the 16-point floor
    (400, (16, 40)),         # at least 16, at most 10 % = 40
    (10_000, (160, 160)),    # 2 % = 200, capped at 160
])
def test_simulated_bounds(total, bounds):
    assert simulated_bounds(total) == bounds


# ---------------------------------------------------------------- the screen against the engine

BASE = {"model": "llama-3.1-8b", "seed": 0, "replicas": 1, "router": "round_robin",
        "workload": {"num_requests": 60, "arrival_rate_per_s": 20,
                     "prompt_tokens": {"dist": "lognormal", "mean": 512, "sigma": 0.6},
                     "output_tokens": {"dist": "lognormal", "mean": 128, "sigma": 0.6}},
        "slo": {"ttft_s": 0.5, "tpot_s": 0.05}}


def _setup(p: dict) -> ServingSetup:
    return ServingSetup(MODELS[p["model"]], GPUS[p["gpu"]], **{k: p[k] for k in SETUP_FIELDS if k in p})


def _engine(p: dict, w, slo: SLO) -> dict | None:
    try:
        r = simulate(_setup(p), w, slo=slo, replicas=p["replicas"], limit=WorkLimit(600_000, 1_000_000))
    except SimulationError:
        return None
    return {"metrics": {"usd_per_million_tokens": r["cost"]["usd_per_million_output_tokens"],
                        "ttft_s": {"p99": r["ttft_s"]["p99"]}},
            "meets": r["ttft_s"]["p99"] <= slo.ttft_s and r["tpot_s"]["p99"] <= slo.tpot_s}


def _candidates_and_frontier(gpus: list[str]) -> tuple[list, list]:
    """The engine's exact frontier over the grid, simulated point by point, and the frontier of the screen's 12
    candidates alone, as (cost, p99 TTFT) figures."""
    grid = {"gpu": gpus, "tensor_parallel": [1, 2, 4], "replicas": [1, 2], "max_num_seqs": [4, 16, 64]}
    points = [point_params(BASE, v) for v in grid_points(grid)]
    w = workload_build(workload=BASE["workload"], seed=0)
    slo = SLO(**BASE["slo"])
    screen = screen_points(MODELS["llama-3.1-8b"], {g: GPUS[g] for g in grid["gpu"]}, points, w, slo)
    chosen = select_candidates(screen, slo.ttft_s, slo.tpot_s, keep=12, cap=12)
    assert len(chosen) == 12
    results = [_engine(p, w, slo) for p in points]
    full = pareto_frontier([dict(r, index=i) for i, r in enumerate(results) if r and r["meets"]])
    part = pareto_frontier([dict(results[i], index=i) for i in chosen if results[i] and results[i]["meets"]])

    def figures(frontier):
        return [(p["metrics"]["usd_per_million_tokens"], p["metrics"]["ttft_s"]["p99"]) for p in frontier]

    return figures(part), figures(full)


@pytest.mark.parametrize("gpus", [["h100-sxm", "a100-80gb"], ["h100-sxm", "a100-80gb", "l40s"]])
def test_the_candidates_hold_the_exhaustive_frontier(gpus):
    """Every point simulated one by one (the exhaustive answer); the screen's 12 candidates give the same frontier.
    With L40S the cheapest point (TP 2, 64 sequences) has more demand than a steady state at its batch ceiling could
    serve, yet meets the SLO: the 60 requests end before a queue for slots forms, and prompts waiting together share
    a step, so the screen must not call it overloaded."""
    part, full = _candidates_and_frontier(gpus)
    assert len(full) >= 3
    assert part == full


def test_the_screen_refuses_exactly_what_the_engine_refuses():
    """Feasibility is the engine's own check (weights, KV room for the longest request, TP dividing the heads,
    no chunked prefill with a budget below the longest request), with the engine's words."""
    base = {**BASE, "model": "llama-3.1-70b"}
    grid = {"gpu": ["h100-sxm", "l40s"], "tensor_parallel": [1, 2, 4, 8], "max_num_batched_tokens": [512, 8192],
            "chunked_prefill": [True, False]}
    points = [point_params(base, v) for v in grid_points(grid)]
    w = workload_build(workload=base["workload"], seed=0)
    screen = screen_points(MODELS["llama-3.1-70b"], {g: GPUS[g] for g in grid["gpu"]}, points, w, SLO())
    for i, p in enumerate(points):
        setup = _setup(p)
        try:
            check_fits(setup, w, kv_blocks(setup))
            refused = None
        except SimulationError as exc:
            refused = f"{exc.field}: {exc.message}"
        assert screen.error[i] == refused, p
        assert bool(screen.feasible[i]) == (refused is None)
    assert 0 < screen.feasible.sum() < len(points)


def test_a_dtype_the_gpu_cannot_run_is_refused_with_the_engines_words():
    """NVFP4 needs FP4 tensor cores: on an H100 the engine refuses those points, and so does the screen, with the same
    field and message (not an error of the whole sweep)."""
    grid = {"weight_dtype": ["fp4", "fp8"], "max_num_seqs": [16, 64]}
    base = {**BASE, "gpu": "h100-sxm"}
    points = [point_params(base, v) for v in grid_points(grid)]
    w = workload_build(workload=base["workload"], seed=0)
    screen = screen_points(MODELS["llama-3.1-8b"], {"h100-sxm": GPUS["h100-sxm"]}, points, w, SLO())
    with pytest.raises(ModelInputError) as refused:
        simulate(_setup(points[0]), w, slo=SLO())
    # points in grid order, the last knob fastest: (16, fp4), (16, fp8), (64, fp4), (64, fp8)
    assert screen.error[0] == screen.error[2] == f"{refused.value.field}: {refused.value.message}"
    assert "FP4" in screen.error[0]
    assert list(screen.feasible) == [False, True, False, True]


def test_a_lone_request_by_hand():
    """One request: nothing queues and there is no other prefill, so TPOT is the roofline decode step at batch 1
    and mean context prompt + output/2, and TTFT is the decode step already running plus one mixed step holding
    the request's whole prompt (300 tokens ≤ the 8,192-token budget): compute adds (decode FLOPs + prompt FLOPs),
    bytes add the prompt's streamed bytes but not the weights again (read once per step), communication and
    overhead add the prompt's share."""
    m, g = MODELS["llama-3.1-8b"], GPUS["h100-sxm"]
    base = {**BASE, "gpu": "h100-sxm", "workload": {"num_requests": 1, "arrival_rate_per_s": 1, "prompt_tokens": 300,
                                                    "output_tokens": 100}}
    w = workload_build(workload=base["workload"], seed=0)
    screen = screen_points(m, {"h100-sxm": g}, [point_params(base, {})], w, SLO())
    d = step_time(m, g, batch=1, context_tokens=300 + 100 / 2)
    p = step_time(m, g, batch=1, context_tokens=0, new_tokens=300)
    # the prompt's streamed bytes (KV writes at the KV-read efficiency, activations at MBU): its memory time less
    # the weights' 15,009,849,344 B / (3.35e12 B/s · Hopper's weight-read MBU 0.60)
    streamed = p.memory_time_s - 15_009_849_344 / (3.35e12 * 0.60)
    mixed = (max(d.compute_time_s + p.compute_time_s, d.memory_time_s + streamed)
             + d.communication_time_s + p.communication_time_s + d.overhead_time_s)
    assert screen.tpot_p99_s[0] == pytest.approx(d.step_time_s, rel=1e-9)
    assert screen.ttft_p99_s[0] == pytest.approx(d.step_time_s + mixed, rel=1e-9)
    assert screen.meets_slo[0]


# ---------------------------------------------------------------- the job

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


BIG = {"max_num_seqs": list(range(4, 404, 4)), "max_num_batched_tokens": list(range(1024, 1024 + 100 * 512, 512))}


def test_a_10000_point_grid_is_accepted_as_two_stage_and_refused_exhaustive(learner_client, no_send):  # noqa: F811
    """The same 10,000 points of a heavy workload: simulated whole they are past the 1,800 s budget (every point
    needs at least 2,000,000 output tokens / max_num_seqs engine steps); screened, 160 are simulated."""
    body = sweep_body(workload=HEAVY, grid=BIG)
    r = learner_client.post(URL, {**body, "mode": "exhaustive"}, format="json")
    assert r.status_code == 400 and "SWEEP_USER_BUDGET_CPU_S" in r.json()["detail"], r.json()
    r = learner_client.post(URL, body, format="json")
    assert r.status_code == 202, r.json()
    job = SweepJob.objects.get(id=r.json()["id"])
    screen = job.screen
    assert (screen["mode"], screen["grid_points"], screen["simulated"]) == ("two_stage", 10_000, 160)
    assert job.total_points == 160 == len(screen["candidates"]) == len(screen["points"])
    cost = sweeps.sweep_cost(job.request, screen["candidates"])
    assert job.cost_estimate_s == round(cost["cpu_s"], 3)
    assert cost["screened"] == 10_000 and cost["points"] == 160


def test_two_stage_cost_is_the_simulated_points_plus_the_screen():
    body = sweep_body(grid={"max_num_seqs": [8, 64], "tensor_parallel": [1, 2]})
    cost = sweeps.sweep_cost(body, [1, 2])  # (8, TP 2) and (64, TP 1)
    # 40 requests × 40 output tokens, 339 tokens scheduled each: max(40, ceil(1600/8) = 200, ceil(13,560/8192) = 2)
    # = 200 steps at 8 sequences, max(40, 25, 2) = 40 at 64; plus 4 points screened
    assert (cost["points"], cost["screened"], cost["steps"]) == (2, 4, 240)
    assert cost["cpu_s"] == pytest.approx(2 * (sweeps.POINT_S + 40 * sweeps.REQUEST_S) + 240 * sweeps.STEP_S
                                          + 4 * sweeps.SCREEN_POINT_S)


def test_an_unknown_mode_is_a_400_naming_it(learner_client):
    r = learner_client.post(URL, sweep_body(mode="random"), format="json")
    assert r.status_code == 400
    assert "mode" in r.json()["fields"]


def test_a_two_stage_sweep_ends_with_a_simulated_frontier(learner_client, eager,
                                                           django_capture_on_commit_callbacks):
    grid = {"gpu": ["h100-sxm", "a100-80gb", "l40s"], "tensor_parallel": [1, 2], "max_num_seqs": [4, 16, 64, 256]}
    with django_capture_on_commit_callbacks(execute=True):
        r = learner_client.post(URL, sweep_body(grid=grid), format="json")
    assert r.status_code == 202, r.json()
    data = learner_client.get(f"{URL}{r.json()['id']}/").json()
    assert data["status"] == "succeeded", data["error"]
    screen = data["screen"]
    assert (screen["mode"], screen["grid_points"]) == ("two_stage", 24)
    assert data["total_points"] == screen["simulated"] == 16 == data["done_points"]
    assert [p["index"] for p in data["results"]] == screen["candidates"]
    assert all(p["metrics"]["screen"] == screen["points"][str(p["index"])] for p in data["results"])
    assert screen["agreement"]["simulated"] == 16
    by_index = {p["index"]: p for p in data["results"]}
    assert data["pareto"]
    for point in data["pareto"]:  # the engine's verdict and both figures for every frontier point
        simulated = by_index[point["index"]]
        assert simulated["meets_slo"] and point["engine"]["meets_slo"]
        assert point["ttft_p99_s"] == simulated["metrics"]["ttft_s"]["p99"]
        assert point["screen"]["ttft_p99_s"] > 0 and point["screen"]["usd_per_million_tokens"] > 0
    rec = data["recommendation"]
    assert rec["index"] == data["pareto"][0]["index"]
    assert rec["command"].startswith("vllm serve meta-llama/")
    assert SweepJob.objects.get(id=r.json()["id"]).status == SweepStatus.SUCCEEDED
