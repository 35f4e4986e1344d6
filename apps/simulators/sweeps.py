"""Sweep jobs: their lifecycle, from acceptance to the Pareto frontier. The maths is elsewhere: grid expansion and the
frontier in apps.simulators.engine.grid, one point in apps.simulators.simulation.

The points are cut into chunks; every chunk is one Celery task, all sent as a group, so every worker takes chunks.
A chunk:
1. returns at once if the job is no longer queued/running (cancelled, failed, done);
2. computes its points (heartbeat and a status check between points);
3. in one transaction, with the job row locked: if none of its points is stored yet it
   bulk-inserts them (ignore_conflicts on the unique (job, index)) and increments
   done_chunks/done_points with F(); a redelivered chunk finds its points and stops,
   so a point is written and counted exactly once;
4. the chunk whose increment makes done_chunks == total_chunks computes the Pareto
   frontier and the recommendation and marks the job succeeded.
A watchdog fails queued/running jobs without a heartbeat for SWEEP_WATCHDOG_TIMEOUT_S
(a lost worker), so no job stays running forever; it runs when jobs are read, before
each chunk and as a Celery task.
A point meets the SLO when its p99 TTFT and p99 TPOT are within the SLO.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime, timedelta

from celery import current_app, group
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.shortcuts import get_object_or_404
from django.utils import timezone

from apps.core.exceptions import TooManyRequests
from apps.core.services import ensure_broker_available
from apps.simulators import catalog
from apps.simulators.engine.grid import chunk_bounds, chunk_size, grid_points, grid_size, pareto_frontier, point_params
from apps.simulators.modeling import ModelInputError, vllm_serve_config
from apps.simulators.models import SweepJob, SweepPoint, SweepStatus
from apps.simulators.simulation import point_compute

logger = logging.getLogger(__name__)

MAX_ACTIVE_SWEEPS = 3
ACTIVE = (SweepStatus.QUEUED, SweepStatus.RUNNING)
CHUNK_TASK = "simulators.sweep_chunk"


def watchdog_timeout_s() -> float:
    return float(getattr(settings, "SWEEP_WATCHDOG_TIMEOUT_S", 600))


def sweep_watchdog(*, now: datetime, timeout_s: float | None = None, job_ids: list | None = None) -> int:
    """Fail active jobs with no heartbeat (or, if never started, no start) within the timeout."""
    timeout = watchdog_timeout_s() if timeout_s is None else timeout_s
    cutoff = now - timedelta(seconds=timeout)
    qs = SweepJob.objects.filter(status__in=ACTIVE).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=cutoff))
    if job_ids is not None:
        qs = qs.filter(id__in=job_ids)
    return qs.update(status=SweepStatus.FAILED, finished_at=now,
                     error=f"No progress for more than {timeout:g} s: a worker was probably lost. "
                           "Points computed so far are kept.")


def sweep_job_create(*, user, request: dict) -> SweepJob:
    sweep_watchdog(now=timezone.now(), job_ids=list(user.sweeps.filter(status__in=ACTIVE).values_list("id", flat=True)))
    if user.sweeps.filter(status__in=ACTIVE).count() >= MAX_ACTIVE_SWEEPS:
        raise TooManyRequests(f"You already have {MAX_ACTIVE_SWEEPS} sweeps queued or running; "
                            "wait for one to finish or cancel one.")
    catalog.request_model(user, request)  # an unknown or hidden slug is refused now, not at every point
    if "gpu" not in request["grid"]:
        catalog.request_gpu(user, request)
    ensure_broker_available()
    total = grid_size(request["grid"])
    chunks = math.ceil(total / chunk_size(total))
    job = SweepJob.objects.create(user=user, request=request, total_points=total, total_chunks=chunks)
    transaction.on_commit(lambda: sweep_launch(job_id=job.id, chunks=chunks))
    return job


def chunk_task_id(job_id, chunk: int) -> str:
    return f"sweep-{job_id}-{chunk}"


def sweep_launch(*, job_id, chunks: int) -> None:
    queue = getattr(settings, "SWEEPS_QUEUE", None)
    options = {"queue": queue} if queue else {}
    sigs = [current_app.signature(CHUNK_TASK, args=(str(job_id), i), immutable=True)
            .set(task_id=chunk_task_id(job_id, i), **options) for i in range(chunks)]
    try:
        group(sigs).apply_async()
    except Exception as exc:  # broker vanished between the check and the send
        logger.exception("sweep %s: could not enqueue", job_id)
        SweepJob.objects.filter(id=job_id, status__in=ACTIVE).update(
            status=SweepStatus.FAILED, error=f"Could not queue the sweep: {exc}", finished_at=timezone.now())


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
    lo, hi = chunk_bounds(job.total_points, chunk)
    if SweepPoint.objects.filter(job_id=job_id, index__gte=lo, index__lt=hi).exists():
        return 0
    combos = grid_points(job.request["grid"])[lo:hi]
    rows = []
    for offset, values in enumerate(combos):
        if _beat(job_id, timezone.now()) not in ACTIVE:
            return 0
        metrics, meets = point_compute(user=job.user, request=job.request, grid_values=values)
        rows.append(SweepPoint(job_id=job_id, index=lo + offset, params=values, metrics=metrics, meets_slo=meets))
    return _store_chunk(job_id, lo, hi, rows)


def _store_chunk(job_id, lo: int, hi: int, rows: list[SweepPoint]) -> int:
    with transaction.atomic():
        job = SweepJob.objects.select_for_update().get(id=job_id)
        if job.status not in ACTIVE:
            return 0
        if SweepPoint.objects.filter(job_id=job_id, index__gte=lo, index__lt=hi).exists():
            return 0  # a redelivered copy of this chunk got here first
        SweepPoint.objects.bulk_create(rows, ignore_conflicts=True)
        SweepJob.objects.filter(id=job_id).update(done_chunks=F("done_chunks") + 1,
                                                  done_points=F("done_points") + len(rows), heartbeat_at=timezone.now())
        job.refresh_from_db(fields=["done_chunks", "total_chunks"])
        if job.done_chunks >= job.total_chunks:
            sweep_finalize(job=job)
    return len(rows)


def sweep_finalize(*, job: SweepJob) -> None:
    good = [{"index": i, "params": params, "metrics": m}
            for i, params, m in job.points.filter(meets_slo=True).values_list("index", "params", "metrics")]
    frontier = pareto_frontier(good)
    job.pareto = [{"index": p["index"], "usd_per_million_tokens": p["metrics"]["usd_per_million_tokens"],
                   "ttft_p99_s": p["metrics"]["ttft_s"]["p99"]} for p in frontier]
    job.recommendation = _recommend(job.user, job.request, frontier[0]) if frontier else None
    job.status = SweepStatus.SUCCEEDED
    job.finished_at = timezone.now()
    job.save(update_fields=["pareto", "recommendation", "status", "finished_at"])


def _recommend(user, request: dict, best: dict) -> dict:
    params = point_params(request, best["params"])
    model = catalog.request_model(user, params)
    gpu = catalog.request_gpu(user, params)
    longest = best["metrics"]["longest_request_tokens"]
    max_len = min(model.max_position_embeddings, max(2048, 1 << (longest - 1).bit_length()))
    try:
        serve = vllm_serve_config(
            model, gpu, tp=params.get("tensor_parallel", 1), max_model_len=max_len,
            gpu_memory_utilization=params.get("gpu_memory_utilization", 0.9),
            weight_dtype=params.get("weight_dtype", "bf16"), kv_dtype=params.get("kv_dtype", "bf16"),
            max_num_seqs=params.get("max_num_seqs", 256),
            max_num_batched_tokens=params.get("max_num_batched_tokens", 8192),
            enable_prefix_caching=params.get("prefix_caching", False))
        command, flags = serve.command, serve.flags
    except ModelInputError as exc:
        command, flags = "", [{"flag": "", "value": None, "why": exc.message}]
    replicas = params.get("replicas", 1)
    return {
        "index": best["index"], "params": best["params"], "metrics": best["metrics"],
        "command": command, "flags": flags, "replicas": replicas, "router": params.get("router", "round_robin"),
        "reason": (f"Cheapest configuration meeting the SLO: ${best['metrics']['usd_per_million_tokens']:.3f} per "
                   f"million output tokens at p99 TTFT {best['metrics']['ttft_s']['p99'] * 1e3:,.0f} ms on "
                   f"{replicas} × {params.get('tensor_parallel', 1)} × {gpu.name}"
                   + (f", {replicas} replicas behind a {params.get('router', 'round_robin')} router" if replicas > 1 else "")),
    }


def sweep_job_fail(*, job_id, reason: str) -> int:
    return SweepJob.objects.filter(id=job_id, status__in=ACTIVE).update(
        status=SweepStatus.FAILED, error=reason[:2000], finished_at=timezone.now())


def sweep_job_get(*, user, job_id) -> SweepJob:
    sweep_watchdog(now=timezone.now(), job_ids=[job_id])
    return get_object_or_404(SweepJob, id=job_id, user=user)


def sweep_job_list(*, user):
    sweep_watchdog(now=timezone.now(), job_ids=list(user.sweeps.filter(status__in=ACTIVE).values_list("id", flat=True)))
    return SweepJob.objects.filter(user=user).order_by("-created_at")


def sweep_job_cancel(*, user, job_id) -> SweepJob:
    job = get_object_or_404(SweepJob, id=job_id, user=user)
    updated = SweepJob.objects.filter(id=job.id, status__in=ACTIVE).update(
        status=SweepStatus.CANCELLED, finished_at=timezone.now())
    if updated:
        _revoke(job)
    job.refresh_from_db()
    return job


def _revoke(job: SweepJob) -> None:
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return
    try:
        current_app.control.revoke([chunk_task_id(job.id, i) for i in range(job.total_chunks)])
    except Exception:  # revoking is best effort: chunks also check the status before computing
        logger.warning("sweep %s: revoke failed", job.id, exc_info=True)

