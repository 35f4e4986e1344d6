"""Sweep jobs: their lifecycle, from acceptance to the Pareto frontier. The maths is elsewhere: grid expansion, the
frontier and the choice of candidates in apps.simulators.engine.grid, the closed-form screen in
apps.simulators.engine.screen, one simulated point in apps.simulators.simulation.

Two stages (mode "two_stage", the default). At acceptance the closed-form screen prices every grid point in one
vectorized pass (milliseconds for 10,000 points); the discrete-event engine then runs only on the candidates near
the screen's frontier (grid.select_candidates: the points within 25 % of the screen's frontier, including those
the screen puts just past the SLO boundary, filled up to 2 % of the grid and at least 16 points, at most 10 % and
160 points). Both figures are kept: each simulated point's metrics carry the screen's under
"screen", and the job's `screen` holds the summary (points screened, feasible, screened as meeting the SLO,
simulated, and at the end how often screen and engine agreed). The frontier and the recommendation come from the
simulated points only, so every frontier point has the engine's verdict. Mode "exhaustive" simulates every point
(a grid of 16 points or fewer is always simulated whole). total_points/done_points count simulated points.

Acceptance. A sweep's cost is estimated before it is accepted (sweep_cost: per simulated point, a lower bound on the
engine steps — the bound simulation.workload_check uses — and the requests, in worker CPU seconds calibrated on the
engine; plus SCREEN_POINT_S per screened point). Refused: a sweep that alone exceeds the per-user budget (400), one that would take the user's queued and
running sweeps past it or past MAX_ACTIVE_SWEEPS (429), and any sweep while the work queued by everybody exceeds the
global backlog cap (503 with Retry-After).

Fairness. The points are cut into chunks of about SWEEP_CHUNK_TARGET_S of CPU each; every chunk is one Celery task.
Chunks are not sent all at once: each user has at most SWEEP_USER_WINDOW chunks in the queue or running (their
oldest sweep first), and when one finishes the next is sent (sweep_dispatch). The queue is FIFO, so another user's
chunks wait behind at most a window of each busy user's chunks, a few seconds, not behind a whole sweep.

A chunk:
1. returns at once if the job is no longer queued/running (cancelled, failed, done) or its points are stored;
2. computes its points (heartbeat and a status check between points);
3. in one transaction, with the job row locked: if none of its points is stored yet it
   bulk-inserts them (ignore_conflicts on the unique (job, index)) and increments
   done_chunks/done_points with F(); a redelivered chunk finds its points and stops,
   so a point is written and counted exactly once;
4. the chunk whose increment makes done_chunks == total_chunks computes the Pareto
   frontier and the recommendation and marks the job succeeded;
5. tops up its user's window.

Lost work. The watchdog (a Celery beat task every 20 s, and also when jobs are read and before each chunk) finds
active jobs with chunks sent but no progress for SWEEP_WATCHDOG_TIMEOUT_S (a lost worker, messages lost with a
broker restart) and sends their unfinished chunks again — harmless, a chunk is stored once — up to
SWEEP_MAX_REQUEUES times in a row; then the job is failed with the reason. So a stalled sweep is re-sent or
failed within about a minute and a half, and no job stays running forever.
A point meets the SLO when its p99 TTFT and p99 TPOT are within the SLO.

Disaggregated layouts and budgets. A grid with prefill_replicas/decode_replicas also holds P/D layouts (grid.py's
docstring); each is simulated by the engine's P/D cluster simulation, never priced by the screen (it models one
colocated replica pool): in a two-stage sweep every P/D point within the budgets is simulated, besides the screen's
colocated candidates, and the cost estimate counts them (a P/D point's step bound: its prompts through the prefill
pool's budget, then its outputs through the decode pool). Budgets (max_gpus, max_usd_per_hour) and the 16-replica
limit of a P/D layout are checked before anything runs (point_exclusion): such a point is never screened nor
simulated; the screen's summary counts them ("excluded"), and where the whole grid is simulated they are stored as
infeasible points with the reason. The frontier and the recommendation hence respect the budgets; the
recommendation compares the best colocated and the best disaggregated layout and says why the winner wins.
"""

from __future__ import annotations

import logging
import math
import threading
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404
from django.utils import timezone

from apps.core.exceptions import InvalidInput, TooManyRequests, Unavailable
from apps.core.services import ensure_broker_available
from apps.simulators import catalog
from apps.simulators.engine.grid import (
    MIN_SIMULATED,
    chunk_size,
    grid_point,
    grid_points,
    grid_size,
    is_disaggregated,
    layout_gpus,
    pareto_frontier,
    point_params,
    pool_tensor_parallel,
    select_candidates,
    simulated_bounds,
)
from apps.simulators.engine.metrics import SLO
from apps.simulators.engine.screen import screen_points
from apps.simulators.modeling import ModelInputError, Parallelism, vllm_serve_config
from apps.simulators.modeling.vllm_defaults import GPU_MEMORY_UTILIZATION
from apps.simulators.models import SweepJob, SweepPoint, SweepStatus
from apps.simulators.simulation import point_compute, workload_build

logger = logging.getLogger(__name__)

MAX_ACTIVE_SWEEPS = 3
ACTIVE = (SweepStatus.QUEUED, SweepStatus.RUNNING)
CHUNK_TASK = "simulators.sweep_chunk"
WATCHDOG_TASK = "simulators.sweep_watchdog"

# Worker CPU per point ≈ POINT_S + REQUEST_S × requests + STEP_S × engine steps; fitted on the engine with a
# margin (measured 9-45 µs per lower-bound step and 30-300 µs per request on 2 busy cores).
POINT_S = 0.005
REQUEST_S = 50e-6
STEP_S = 25e-6
MAX_CHUNK_POINTS = 25
SCREEN_POINT_S = 50e-6  # the screen's CPU per grid point, with a margin (measured 5-15 µs on 2 busy cores)


def _setting(name: str, default):
    return type(default)(getattr(settings, name, default))


def watchdog_timeout_s() -> float:
    return _setting("SWEEP_WATCHDOG_TIMEOUT_S", 60.0)


class BacklogFull(Unavailable):
    """Everybody's queued work is past the global cap; retry_after (seconds) goes out as Retry-After."""

    code = "backlog_full"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


# Cost estimate -------------------------------------------------------------------------------------------------

def sweep_cost(request: dict, indices: list[int] | None = None, excluded: dict | None = None) -> dict:
    """Estimated worker CPU seconds of a validated sweep request, with the figures it comes from: the grid points
    `indices` are simulated (all of them when None) and, in a two-stage sweep, every point is screened.

    Per simulated point, the engine-step lower bound of simulation.workload_check: every step emits at most max_num_seqs
    output tokens, a request's outputs take one step each, and (without prefix caching or static batching) a step
    schedules at most max_num_batched_tokens tokens. Summed over replicas the bound holds too. A P/D point: its
    prompts' steps in the prefill pool plus its outputs' (all but the first token) in the decode pool. A point in
    `excluded` (grid index → reason) is stored without running: POINT_S only."""
    w = workload_build(workload=request["workload"], seed=request.get("seed", 0))
    out = w.output_tokens
    out_sum, out_max = int(out.sum()), int(out.max())
    scheduled = int((w.prompt_tokens + out - 1).sum())
    requests = len(out)
    grid = request["grid"]
    excluded = excluded or {}
    chosen = indices if indices is not None else range(grid_size(grid))
    points = [grid_point(grid, i) for i in chosen if i not in excluded]
    prompts = int(w.prompt_tokens.sum())
    steps = 0
    for values in points:
        p = point_params(request, values)
        seqs, budget = p.get("max_num_seqs", 256), p.get("max_num_batched_tokens", 8192)
        if p.get("disaggregation"):
            s = -(-prompts // budget) + max(out_max - 1, -(-(out_sum - requests) // seqs))
        else:
            s = max(out_max, -(-out_sum // seqs))
            if not p.get("prefix_caching") and not p.get("static_batching"):
                s = max(s, -(-scheduled // budget))
        steps += s
    total = len(chosen)
    screened = grid_size(grid) - len(excluded) if indices is not None else 0
    cpu = total * POINT_S + len(points) * REQUEST_S * requests + STEP_S * steps + SCREEN_POINT_S * screened
    return {"points": total, "screened": screened, "requests": requests, "steps": steps, "cpu_s": cpu}


def point_exclusion(user, request: dict, values: dict, gpus: dict | None = None) -> str | None:
    """Why a grid point is not run at all ("field: reason"), or None: a P/D layout of more than 16 replicas, or a
    deployment over the sweep's max_gpus or max_usd_per_hour. `gpus` caches GPU specs by slug."""
    p = point_params(request, values)
    d = p.get("disaggregation")
    if d and d["prefill_replicas"] + d["decode_replicas"] > 16:
        return (f"prefill_replicas: {d['prefill_replicas']} prefill + {d['decode_replicas']} decode replicas; "
                "at most 16 replicas in all")
    max_gpus, max_usd = request.get("max_gpus"), request.get("max_usd_per_hour")
    if max_gpus is None and max_usd is None:
        return None
    n = layout_gpus(p)
    words = point_layout_words(p)
    if max_gpus is not None and n > max_gpus:
        return f"max_gpus: {words} is {n} GPUs, over the budget of {max_gpus}"
    if max_usd is not None:
        cache = gpus if gpus is not None else {}
        key = p.get("gpu")
        if key not in cache:
            cache[key] = catalog.request_gpu(user, p)
        usd = n * cache[key].price_per_hour_usd
        if usd > max_usd:
            return (f"max_usd_per_hour: {words} costs ${usd:,.2f}/h ({n} × {cache[key].name} at "
                    f"${cache[key].price_per_hour_usd:,.2f}/h), over the budget of ${max_usd:,.2f}/h")
    return None


def excluded_points(user, request: dict) -> dict[int, str]:
    """Grid index → point_exclusion's reason, for every point not to be run."""
    grid = request["grid"]
    if request.get("max_gpus") is None and request.get("max_usd_per_hour") is None and "prefill_replicas" not in grid:
        return {}
    gpus: dict = {}
    out = {}
    for i, values in enumerate(grid_points(grid)):
        reason = point_exclusion(user, request, values, gpus)
        if reason:
            out[i] = reason
    return out


def _remaining_s(jobs) -> float:
    return sum(cost * (total - done) / max(total, 1) for cost, total, done in jobs)


def _check_budgets(user, cost: dict) -> None:
    budget = _setting("SWEEP_USER_BUDGET_CPU_S", 1800.0)
    screened = f" simulated (of {cost['screened']:,} screened)" if cost.get("screened") else ""
    what = (f"{cost['points']:,} points{screened} × {cost['requests']:,} requests, at least "
            f"{cost['steps']:,} engine steps in all: about {cost['cpu_s']:,.0f} s of worker CPU")
    if cost["cpu_s"] > budget:
        raise InvalidInput(f"This sweep is too large: {what}; the limit is {budget:,.0f} s per user "
                           "(SWEEP_USER_BUDGET_CPU_S). Use fewer grid values, fewer requests or shorter outputs.",
                           field="grid")
    mine = SweepJob.objects.filter(user=user, status__in=ACTIVE)
    held = _remaining_s(mine.values_list("cost_estimate_s", "total_points", "done_points"))
    if held + cost["cpu_s"] > budget:
        raise TooManyRequests(f"Your queued and running sweeps still need about {held:,.0f} s of worker CPU and this "
                              f"one {cost['cpu_s']:,.0f} s; the limit is {budget:,.0f} s per user "
                              "(SWEEP_USER_BUDGET_CPU_S). Wait for one to finish or cancel one.")
    cap = _setting("SWEEP_BACKLOG_MAX_CPU_S", 14400.0)
    backlog = _remaining_s(SweepJob.objects.filter(status__in=ACTIVE)
                           .values_list("cost_estimate_s", "total_points", "done_points"))
    if backlog + cost["cpu_s"] > cap:
        workers = max(1, _setting("SWEEP_WORKERS", 2))
        retry = int(min(3600, max(10, math.ceil((backlog + cost["cpu_s"] - cap) / workers))))
        raise BacklogFull(f"The sweep queue is full: about {backlog:,.0f} s of queued work against a cap of "
                          f"{cap:,.0f} s (SWEEP_BACKLOG_MAX_CPU_S). Try again in about {retry} s.", retry_after=retry)


def _chunk_points(cost: dict) -> int:
    per_point = cost["cpu_s"] / max(cost["points"], 1)
    return max(1, min(MAX_CHUNK_POINTS, int(_setting("SWEEP_CHUNK_TARGET_S", 2.0) // per_point)))


def chunk_range(job: SweepJob, chunk: int) -> tuple[int, int]:
    size = job.chunk_points or chunk_size(job.total_points)
    return chunk * size, min(job.total_points, (chunk + 1) * size)


# Lifecycle -----------------------------------------------------------------------------------------------------

def sweep_job_create(*, user, request: dict) -> SweepJob:
    sweep_watchdog(now=timezone.now(), job_ids=list(user.sweeps.filter(status__in=ACTIVE).values_list("id", flat=True)))
    if user.sweeps.filter(status__in=ACTIVE).count() >= MAX_ACTIVE_SWEEPS:
        raise TooManyRequests(f"You already have {MAX_ACTIVE_SWEEPS} sweeps queued or running; "
                              "wait for one to finish or cancel one.")
    catalog.request_model(user, request)  # an unknown or hidden slug is refused now, not at every point
    if "gpu" not in request["grid"]:
        catalog.request_gpu(user, request)
    excluded = excluded_points(user, request)
    screen = sweep_screen(user, request, excluded)
    cost = sweep_cost(request, screen.get("candidates"), excluded)
    _check_budgets(user, cost)
    ensure_broker_available()
    total = cost["points"]
    size = _chunk_points(cost)
    job = SweepJob.objects.create(user=user, request=request, total_points=total, chunk_points=size,
                                  total_chunks=math.ceil(total / size), cost_estimate_s=round(cost["cpu_s"], 3),
                                  screen=screen)
    transaction.on_commit(lambda: sweep_dispatch(user_id=user.id))
    return job


def sweep_screen(user, request: dict, excluded: dict | None = None) -> dict:
    """Stage one: the screen's summary, with the candidates (grid indices, ascending) and their screen figures;
    {"mode": "exhaustive", ...} without candidates when every point is to be simulated. Points in `excluded` are
    neither screened nor simulated (counted under "excluded", with an example reason); P/D points within the budgets
    are all simulated, unscreened (counted under "disaggregated")."""
    total = grid_size(request["grid"])
    excluded = excluded or {}
    grid_all = grid_points(request["grid"])
    pd = [i for i, values in enumerate(grid_all) if is_disaggregated(values) and i not in excluded]
    extra = {"disaggregated": len(pd)} if "prefill_replicas" in request["grid"] else {}
    if excluded:
        extra |= {"excluded": len(excluded), "excluded_example": next(iter(excluded.values()))}
    if request.get("mode", "two_stage") == "exhaustive" or total <= MIN_SIMULATED:
        return {"mode": "exhaustive", "grid_points": total, "simulated": total - len(excluded), **extra}
    start = timezone.now()
    model = catalog.request_model(user, request)
    gpus = ({g: catalog.gpu_spec(user=user, slug=g) for g in request["grid"]["gpu"]} if "gpu" in request["grid"]
            else {request.get("gpu"): catalog.request_gpu(user, request)})
    colocated = [i for i, values in enumerate(grid_all) if not is_disaggregated(values) and i not in excluded]
    summary: dict = {"feasible": 0, "meets_slo": 0}
    candidates: list[int] = []
    figures: dict = {}
    if colocated:
        points = [point_params(request, grid_all[i]) for i in colocated]
        w = workload_build(workload=request["workload"], seed=request.get("seed", 0))
        slo = SLO(**request.get("slo", {}))
        screen = screen_points(model, gpus, points, w, slo)
        keep, cap = simulated_bounds(len(colocated))
        chosen = select_candidates(screen, slo.ttft_s, slo.tpot_s, keep=keep, cap=cap)
        candidates = [colocated[j] for j in chosen]
        figures = {str(colocated[j]): screen.point(j) for j in chosen}
        summary = {"feasible": int(screen.feasible.sum()), "meets_slo": int(screen.meets_slo.sum())}
    candidates = sorted(candidates + pd)
    return {"mode": "two_stage", "grid_points": total, **summary, "simulated": len(candidates),
            "seconds": round((timezone.now() - start).total_seconds(), 3), **extra, "candidates": candidates,
            "points": figures}


def chunk_indices(job: SweepJob, chunk: int) -> list[int]:
    """The grid indices a chunk simulates: a slice of the candidates (two-stage) or of the whole grid."""
    lo, hi = chunk_range(job, chunk)
    candidates = (job.screen or {}).get("candidates")
    return list(range(lo, hi)) if candidates is None else candidates[lo:hi]


def _chunk_of(job: SweepJob):
    """Grid index → the chunk that simulates it."""
    size = job.chunk_points or chunk_size(job.total_points)
    candidates = (job.screen or {}).get("candidates")
    if candidates is None:
        return lambda index: index // size
    position = {index: i for i, index in enumerate(candidates)}
    return lambda index: position[index] // size


def chunk_task_id(job_id, chunk: int) -> str:
    return f"sweep-{job_id}-{chunk}"


_eager = threading.local()


def _send(chunks: list[tuple]) -> int:
    """Sends (job_id, chunk) tasks; returns how many went out. A failed send is left to the watchdog.

    Eager mode (tests, CELERY_TASK_ALWAYS_EAGER) runs a chunk inside the send and the chunk sends the next one:
    chunks sent from inside a chunk are queued here and run by the outermost send, in a loop, not a recursion."""
    if current_app.conf.task_always_eager:
        pending = getattr(_eager, "pending", None)
        if pending is not None:
            pending.extend(chunks)
            return len(chunks)
        _eager.pending = list(chunks)
        try:
            sent = 0
            while _eager.pending:
                sent += _send_now([_eager.pending.pop(0)])
            return sent
        finally:
            _eager.pending = None
    return _send_now(chunks)


def _send_now(chunks: list[tuple]) -> int:
    queue = getattr(settings, "SWEEPS_QUEUE", None)
    options = {"queue": queue} if queue else {}
    sent = 0
    for job_id, chunk in chunks:
        try:
            current_app.signature(CHUNK_TASK, args=(str(job_id), chunk), immutable=True).apply_async(
                task_id=chunk_task_id(job_id, chunk), retry=False, **options)
            sent += 1
        except Exception:  # the broker vanished: the watchdog sends it again once the job is seen stalled
            logger.warning("sweep %s: could not send chunk %s", job_id, chunk, exc_info=True)
    return sent


def sweep_dispatch(*, user_id) -> int:
    """Tops up a user's window: sends the next chunks of their oldest active sweeps until SWEEP_USER_WINDOW chunks
    are queued or running; returns the number of chunks sent."""
    window = max(1, _setting("SWEEP_USER_WINDOW", 2))
    chunks: list[tuple] = []
    now = timezone.now()
    with transaction.atomic():
        jobs = list(SweepJob.objects.select_for_update().filter(user_id=user_id, status__in=ACTIVE)
                    .order_by("created_at", "id"))
        in_flight = sum(max(0, j.dispatched_chunks - j.done_chunks) for j in jobs)
        for job in jobs:
            first = job.dispatched_chunks
            while in_flight < window and job.dispatched_chunks < job.total_chunks:
                chunks.append((job.id, job.dispatched_chunks))
                job.dispatched_chunks += 1
                in_flight += 1
            if job.dispatched_chunks != first:  # the job's clock starts when its chunks are sent
                SweepJob.objects.filter(id=job.id).update(dispatched_chunks=job.dispatched_chunks, heartbeat_at=now)
    if chunks:
        transaction.on_commit(lambda: _send(chunks))
    return len(chunks)


def sweep_dispatch_for_job(*, job_id) -> int:
    user_id = SweepJob.objects.filter(id=job_id).values_list("user_id", flat=True).first()
    return 0 if user_id is None else sweep_dispatch(user_id=user_id)


def sweep_watchdog(*, now: datetime, timeout_s: float | None = None, job_ids: list | None = None) -> int:
    """Sends again the unfinished chunks of active jobs that have chunks out but no progress within the timeout;
    fails a job after SWEEP_MAX_REQUEUES re-sends in a row without progress. Returns the number of jobs acted on."""
    timeout = watchdog_timeout_s() if timeout_s is None else timeout_s
    max_requeues = _setting("SWEEP_MAX_REQUEUES", 3)
    cutoff = now - timedelta(seconds=timeout)
    qs = (SweepJob.objects.filter(status__in=ACTIVE).annotate(last=Coalesce("heartbeat_at", "created_at"))
          .filter(last__lt=cutoff))
    if job_ids is not None:
        qs = qs.filter(id__in=job_ids)
    acted, resend, users = 0, [], set()
    with transaction.atomic():
        for job in qs.select_for_update(skip_locked=True, of=("self",)):
            users.add(job.user_id)
            if job.dispatched_chunks <= job.done_chunks:
                continue  # nothing out: waiting for its turn (the dispatch below tops the window up)
            acted += 1
            if job.requeues >= max_requeues:
                SweepJob.objects.filter(id=job.id).update(
                    status=SweepStatus.FAILED, finished_at=now,
                    error=f"No progress for more than {timeout * (job.requeues + 1):g} s although its unfinished "
                          f"chunks were sent again {job.requeues} times: the workers are down or its queued work "
                          "keeps getting lost. Points computed so far are kept.")
                continue
            chunk_of = _chunk_of(job)
            stored = {chunk_of(i) for i in SweepPoint.objects.filter(job_id=job.id).values_list("index", flat=True)}
            missing = [c for c in range(job.dispatched_chunks) if c not in stored]
            resend += [(job.id, c) for c in missing]
            SweepJob.objects.filter(id=job.id).update(requeues=F("requeues") + 1, heartbeat_at=now)
            logger.warning("sweep %s: no progress for %g s; sending chunks %s again", job.id, timeout, missing)
    if resend:
        _send(resend)
    for user_id in users:  # a failed job frees its user's window; a lost dispatch is made again
        sweep_dispatch(user_id=user_id)
    return acted


def _beat(job_id, now: datetime) -> str | None:
    """Heartbeat; returns the job's status (None if deleted)."""
    SweepJob.objects.filter(id=job_id, status=SweepStatus.RUNNING).update(heartbeat_at=now)
    return SweepJob.objects.filter(id=job_id).values_list("status", flat=True).first()


def sweep_chunk_run(*, job_id, chunk: int) -> int:
    """Compute and store one chunk; returns the number of points stored by this call."""
    now = timezone.now()
    sweep_watchdog(now=now)
    job = SweepJob.objects.filter(id=job_id).first()
    if job is None or job.status not in ACTIVE:
        return 0
    SweepJob.objects.filter(id=job_id, status=SweepStatus.QUEUED).update(
        status=SweepStatus.RUNNING, started_at=now, heartbeat_at=now)
    indices = chunk_indices(job, chunk)
    if SweepPoint.objects.filter(job_id=job_id, index__in=indices).exists():
        return 0
    screened = (job.screen or {}).get("points", {})
    rows = []
    for index in indices:
        if _beat(job_id, timezone.now()) not in ACTIVE:
            return 0
        values = grid_point(job.request["grid"], index)
        reason = point_exclusion(job.user, job.request, values)
        if reason:  # a budget or the replica limit: stored with the reason, never simulated
            metrics, meets = {"feasible": False, "error": reason, "excluded": True}, False
        else:
            metrics, meets = point_compute(user=job.user, request=job.request, grid_values=values)
        if str(index) in screened:
            metrics["screen"] = screened[str(index)]
        rows.append(SweepPoint(job_id=job_id, index=index, params=values, metrics=metrics, meets_slo=meets))
    return _store_chunk(job_id, indices, rows)


def _store_chunk(job_id, indices: list[int], rows: list[SweepPoint]) -> int:
    with transaction.atomic():
        job = SweepJob.objects.select_for_update().get(id=job_id)
        if job.status not in ACTIVE:
            return 0
        if SweepPoint.objects.filter(job_id=job_id, index__in=indices).exists():
            return 0  # a redelivered copy of this chunk got here first
        SweepPoint.objects.bulk_create(rows, ignore_conflicts=True)
        SweepJob.objects.filter(id=job_id).update(done_chunks=F("done_chunks") + 1, requeues=0,
                                                  done_points=F("done_points") + len(rows), heartbeat_at=timezone.now())
        job.refresh_from_db(fields=["done_chunks", "total_chunks"])
        if job.done_chunks >= job.total_chunks:
            sweep_finalize(job=job)
    return len(rows)


def sweep_finalize(*, job: SweepJob) -> None:
    """The frontier of the simulated points meeting the SLO (the engine's verdict), each with the screen's figures
    beside the engine's in a two-stage sweep, the recommendation, and how often screen and engine agreed."""
    rows = list(job.points.values_list("index", "params", "metrics", "meets_slo"))
    good = [{"index": i, "params": params, "metrics": m} for i, params, m, meets in rows if meets]
    frontier = pareto_frontier(good)
    job.pareto = [_frontier_point(job.request, p) for p in frontier]
    compared = _compare_layouts(job.request, rows) if "prefill_replicas" in job.request["grid"] else None
    job.recommendation = _recommend(job.user, job.request, frontier[0], compared) if frontier else None
    if job.screen.get("mode") == "two_stage":
        both = [(m["screen"].get("meets_slo", False), meets) for _, _, m, meets in rows if "screen" in m]
        job.screen = {**job.screen, "agreement": {
            "simulated": len(both), "same_verdict": sum(a == b for a, b in both),
            "engine_meets_slo": sum(b for _, b in both), "screen_meets_slo": sum(a for a, _ in both)}}
    job.status = SweepStatus.SUCCEEDED
    job.finished_at = timezone.now()
    job.save(update_fields=["pareto", "recommendation", "screen", "status", "finished_at"])


def _frontier_point(request: dict, p: dict) -> dict:
    m = p["metrics"]
    params = point_params(request, p["params"])
    point = {"index": p["index"], "usd_per_million_tokens": m["usd_per_million_tokens"],
             "ttft_p99_s": m["ttft_s"]["p99"], "tpot_p99_s": m["tpot_s"]["p99"],
             "layout": point_layout_words(params), "disaggregated": bool(params.get("disaggregation")),
             "gpus": m["gpus"],
             "engine": {"simulated": True, "meets_slo": True, "goodput_fraction": m["goodput_fraction"]}}
    if "screen" in m:
        point["screen"] = m["screen"]
    return point


def _compare_layouts(request: dict, rows: list) -> dict:
    """The best colocated and the best disaggregated simulated point (None where the sweep ran none that was
    feasible): the cheapest meeting the SLO, else the one nearest to meeting it (least max(p99 TTFT / SLO,
    p99 TPOT / SLO)), each with the figures that decide and, when it misses, why."""
    slo = SLO(**request.get("slo", {}))
    out: dict = {}
    for kind, wanted in (("colocated", False), ("disaggregated", True)):
        mine = [(i, params, m, meets) for i, params, m, meets in rows
                if m.get("feasible") and is_disaggregated(params) == wanted]
        if not mine:
            out[kind] = None
            continue
        met = [r for r in mine if r[3]]
        i, values, m, meets = (min(met, key=lambda r: (r[2]["usd_per_million_tokens"], r[2]["ttft_s"]["p99"]))
                               if met else min(mine, key=lambda r: max(r[2]["ttft_s"]["p99"] / slo.ttft_s,
                                                                       r[2]["tpot_s"]["p99"] / slo.tpot_s)))
        params = point_params(request, values)
        ttft, tpot = m["ttft_s"]["p99"], m["tpot_s"]["p99"]
        misses = []
        if ttft > slo.ttft_s:
            misses.append(f"p99 TTFT {ttft:,.2f} s is over the {slo.ttft_s:g} s SLO"
                          + (" (its prefill pool queues the prompts)" if wanted else ""))
        if tpot > slo.tpot_s:
            misses.append(f"p99 TPOT {tpot * 1e3:,.1f} ms is over the {slo.tpot_s * 1e3:g} ms SLO"
                          + ("" if wanted else " (prefill interference: its decodes share steps with prompts)"))
        if not misses and not meets:
            misses.append("not every request finished")
        out[kind] = {"index": i, "layout": point_layout_words(params), "gpus": m["gpus"],
                     "usd_per_hour": m["usd_per_hour"], "usd_per_million_tokens": m["usd_per_million_tokens"],
                     "ttft_p99_s": ttft, "tpot_p99_s": tpot, "meets_slo": bool(meets),
                     "why": "; ".join(misses) if misses else
                     f"meets the SLO at ${m['usd_per_million_tokens']:,.2f} per million output tokens"}
    return out


def _comparison_words(best_disaggregated: bool, compared: dict) -> str:
    """Why the winning kind of layout wins, against the best of the other kind."""
    other = compared.get("colocated" if best_disaggregated else "disaggregated")
    if other is None:
        return ""
    kind = "colocated" if best_disaggregated else "disaggregated"
    if not other["meets_slo"]:
        return f". The best {kind} layout, {other['layout']}, misses: {other['why']}"
    return (f". The best {kind} layout, {other['layout']}, meets the SLO too but costs "
            f"${other['usd_per_million_tokens']:,.2f} per million output tokens")


def _recommend(user, request: dict, best: dict, compared: dict | None = None) -> dict:
    params = point_params(request, best["params"])
    model = catalog.request_model(user, params)
    gpu = catalog.request_gpu(user, params)
    longest = best["metrics"]["longest_request_tokens"]
    max_len = min(model.max_position_embeddings, max(2048, 1 << (longest - 1).bit_length()))
    try:
        serve = vllm_serve_config(
            model, gpu, tp=params.get("tensor_parallel", 1), pp=params.get("pipeline_parallel", 1),
            dp=params.get("data_parallel", 1), ep=params.get("expert_parallel", 1), max_model_len=max_len,
            gpu_memory_utilization=params.get("gpu_memory_utilization", GPU_MEMORY_UTILIZATION),
            weight_dtype=params.get("weight_dtype", "bf16"), kv_dtype=params.get("kv_dtype", "bf16"),
            max_num_seqs=params.get("max_num_seqs", 256),
            max_num_batched_tokens=params.get("max_num_batched_tokens", 8192),
            enable_prefix_caching=params.get("prefix_caching", False))
        command, flags = serve.command, serve.flags
    except ModelInputError as exc:
        command, flags = "", [{"flag": "", "value": None, "why": exc.message}]
    d = params.get("disaggregation")
    replicas = d["prefill_replicas"] + d["decode_replicas"] if d else params.get("replicas", 1)
    if d and command:  # both pools serve the same model with the same flags, plus a KV connector
        kv_config = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
        command += f" --kv-transfer-config '{kv_config}'"
        tp, pool_tp = params.get("tensor_parallel", 1), pool_tensor_parallel(params)
        own_tp = "" if set(pool_tp.values()) == {tp} else " ({})".format(", ".join(
            f"{pool} instances with --tensor-parallel-size {size}" for pool, size in pool_tp.items()))
        flags = [*flags, {"flag": "--kv-transfer-config", "value": kv_config, "why": (
            f"Prefill/decode disaggregation: {d['prefill_replicas']} prefill and {d['decode_replicas']} decode "
            f"instances run this command{own_tp}; the KV cache of each prompt moves from a prefill to a decode "
            f"instance over {KV_LINK_WORDS[d.get('kv_transfer', 'nvlink')]} (NIXL), and a proxy in front sends each "
            "request to one of each")}]
    words = point_layout_words(params)
    m = best["metrics"]
    result = {
        "index": best["index"], "params": best["params"], "metrics": m,
        "command": command, "flags": flags, "replicas": replicas, "router": params.get("router", "round_robin"),
        "layout": words, "disaggregated": bool(d),
        "reason": (f"Cheapest configuration meeting the SLO: ${m['usd_per_million_tokens']:.3f} per "
                   f"million output tokens at p99 TTFT {m['ttft_s']['p99'] * 1e3:,.0f} ms"
                   + (f" and p99 TPOT {m['tpot_s']['p99'] * 1e3:,.1f} ms" if compared else "")
                   + f" on {words} on {gpu.name}"
                   + (f", behind a {params.get('router', 'round_robin')} router" if replicas > 1 else "")
                   + (_comparison_words(bool(d), compared) if compared else "")),
    }
    if compared is not None:
        result["compared"] = compared
    return result


KV_LINK_WORDS = {"nvlink": "NVLink inside the node", "rdma": "RDMA between nodes"}


def point_layout_words(params: dict) -> str:
    """One point's deployment with its GPU count: "2 replicas × TP 4 (8 GPUs)", "3 prefill + 1 decode replicas ×
    TP 2 (8 GPUs, KV over NVLink)", and where the pools' TPs differ "2 prefill × TP 4 + 4 decode × TP 2 replicas
    (16 GPUs, KV over NVLink)"."""
    rest = (params.get("pipeline_parallel", 1), params.get("data_parallel", 1), params.get("expert_parallel", 1))
    n = layout_gpus(params)
    d = params.get("disaggregation")
    if d:
        link = "NVLink" if d.get("kv_transfer", "nvlink") == "nvlink" else "RDMA"
        pool_tp = pool_tensor_parallel(params)
        degrees = {pool: layout_words(1, Parallelism(tp, *rest)).removeprefix("1 replica × ")
                   for pool, tp in pool_tp.items()}
        if pool_tp["prefill"] == pool_tp["decode"]:
            pools = f"{d['prefill_replicas']} prefill + {d['decode_replicas']} decode replicas × {degrees['prefill']}"
        else:
            pools = " + ".join(f"{d[f'{pool}_replicas']} {pool} × {degrees[pool]}" for pool in pool_tp) + " replicas"
        return f"{pools} ({n} GPUs, KV over {link})"
    words = layout_words(params.get("replicas", 1), Parallelism(params.get("tensor_parallel", 1), *rest))
    return f"{words[:-1]}, {n} in all)" if words.endswith("each)") else f"{words} ({n} GPU{'' if n == 1 else 's'})"


def layout_words(replicas: int, layout: Parallelism) -> str:
    """A deployment as a reader says it: "1 replica × TP 1", "3 replicas × TP 4 × PP 2 (8 GPUs each)"."""
    degrees = " × ".join([f"TP {layout.tp}"] + [f"{k} {v}" for k, v in (("PP", layout.pp), ("DP", layout.dp),
                                                                         ("EP", layout.ep)) if v > 1])
    each = f" ({layout.gpus} GPUs each)" if replicas > 1 and layout.gpus > 1 and " × " in degrees else ""
    return f"{replicas} replica{'' if replicas == 1 else 's'} × {degrees}{each}"


def sweep_job_fail(*, job_id, reason: str) -> int:
    return SweepJob.objects.filter(id=job_id, status__in=ACTIVE).update(
        status=SweepStatus.FAILED, error=reason[:2000], finished_at=timezone.now())


def sweep_job_get(*, user, job_id) -> SweepJob:
    sweep_watchdog(now=timezone.now(), job_ids=[job_id])
    return get_object_or_404(SweepJob, id=job_id, user=user)


def sweep_job_page(*, user, job_id, page: int, page_size: int) -> SweepJob:
    """The job with one page of its simulated points, by index: a 10,000-point exhaustive sweep is read a page at a
    time. Sets ``page_points``, ``results_count`` and ``next_page`` (None on the last page) on the job."""
    job = sweep_job_get(user=user, job_id=job_id)
    points = job.points.order_by("index")
    job.results_count = points.count()
    start = (page - 1) * page_size
    job.page_points = list(points[start:start + page_size])
    job.page, job.page_size = page, page_size
    job.next_page = page + 1 if start + page_size < job.results_count else None
    return job


def sweep_job_list(*, user):
    sweep_watchdog(now=timezone.now(), job_ids=list(user.sweeps.filter(status__in=ACTIVE).values_list("id", flat=True)))
    return SweepJob.objects.filter(user=user).order_by("-created_at")


def sweep_job_cancel(*, user, job_id) -> SweepJob:
    job = get_object_or_404(SweepJob, id=job_id, user=user)
    updated = SweepJob.objects.filter(id=job.id, status__in=ACTIVE).update(
        status=SweepStatus.CANCELLED, finished_at=timezone.now())
    if updated:
        _revoke(job)
        sweep_dispatch(user_id=user.id)  # the user's next sweep may start
    job.refresh_from_db()
    return job


def _revoke(job: SweepJob) -> None:
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return
    try:
        current_app.control.revoke([chunk_task_id(job.id, i) for i in range(job.dispatched_chunks)])
    except Exception:  # revoking is best effort: chunks also check the status before computing
        logger.warning("sweep %s: revoke failed", job.id, exc_info=True)

