"""Engine and cluster simulations as background jobs: runs past the synchronous caps, up to Vidur's scale.

The request validates the parameters and answers 202 with the job; a worker (apps.simulators.tasks) runs the same
function as the synchronous endpoints with larger caps, writing its progress (the share of requests finished) as it
goes, and stores a result of the same shape. A learner has one job queued or running at a time (a database
constraint: a second is a 409). Cancelling marks the job; the worker sees the mark at its next progress report and
stops. A job still running past the task's time limit lost its worker and is marked failed when next read.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from celery import current_app
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.core.exceptions import Conflict, DomainError, NotFound
from apps.simulators.models import EngineJob, SweepStatus
from apps.simulators.simulation import run_simulation

logger = logging.getLogger(__name__)

ENGINE_JOB_TASK = "simulators.engine_job"  # sent by name: the task module imports this one
TIME_LIMIT_S = 600
JOB_MAX_REQUESTS = 20_000
JOB_MAX_TOKENS = 80_000_000       # Σ (prompt + output): 20,000 requests of 4,000 tokens
JOB_MAX_STEPS = 5_000_000         # about 20 s of CPU at the engine's 3-8 µs a step
JOB_MAX_ENTRIES = 50_000_000
ACTIVE = (SweepStatus.QUEUED, SweepStatus.RUNNING)


class JobCancelled(Exception):
    """Raised from the progress report of a job its owner cancelled."""


def engine_job_create(*, user, params: dict) -> EngineJob:
    _fail_stale(user)
    workload = params["workload"]
    num_requests = len(workload["trace"]) if workload.get("trace") else workload["num_requests"]
    try:
        with transaction.atomic():
            job = EngineJob.objects.create(user=user, request=params, num_requests=num_requests)
    except IntegrityError:
        active = EngineJob.objects.filter(user=user, status__in=ACTIVE).values_list("id", flat=True).first()
        raise Conflict(f"A simulation of yours is already queued or running (job {active}); wait for it or cancel "
                       "it.", field="workload") from None
    transaction.on_commit(lambda: _send(str(job.id)))
    return job


def _send(job_id: str) -> None:
    queue = settings.CELERY_TASK_DEFAULT_QUEUE  # read when sending, so a deployment (or a test) can move it
    current_app.signature(ENGINE_JOB_TASK, args=(job_id,)).apply_async(queue=queue)


def engine_job_run(*, job_id: uuid.UUID | str) -> EngineJob | None:
    """Claims a queued job and simulates it; safe to run twice (a claimed job is left alone)."""
    now = timezone.now()
    if not EngineJob.objects.filter(id=job_id, status=SweepStatus.QUEUED).update(
            status=SweepStatus.RUNNING, started_at=now, heartbeat_at=now):
        return None
    job = EngineJob.objects.select_related("user").get(id=job_id)

    def report(fraction: float) -> None:
        moved = EngineJob.objects.filter(id=job.id, status=SweepStatus.RUNNING).update(
            progress=round(fraction, 4), heartbeat_at=timezone.now())
        if not moved:  # cancelled (or failed as stale) while it ran
            raise JobCancelled

    try:
        result = run_simulation(user=job.user, params=job.request, max_steps=JOB_MAX_STEPS,
                                max_entries=JOB_MAX_ENTRIES, max_tokens=JOB_MAX_TOKENS, progress=report)
    except JobCancelled:
        return job
    except DomainError as exc:
        _finish(job, SweepStatus.FAILED, error={"detail": exc.message, "fields": exc.fields})
    except SoftTimeLimitExceeded:
        _finish(job, SweepStatus.FAILED, error={"detail": f"The simulation ran past {TIME_LIMIT_S // 60} minutes; use "
                                                          "fewer requests or shorter outputs.", "fields": {}})
    except Exception:  # a bug, not the input: the learner is told, the log has the trace
        logger.exception("engine job %s failed", job.id)
        _finish(job, SweepStatus.FAILED, error={"detail": "The simulation failed on our side.", "fields": {}})
    else:
        _finish(job, SweepStatus.SUCCEEDED, result=result)
    return job


def _finish(job: EngineJob, status: str, *, result: dict | None = None, error: dict | None = None) -> None:
    """Stores the outcome unless the job was cancelled meanwhile (a cancel is never overwritten)."""
    EngineJob.objects.filter(id=job.id, status=SweepStatus.RUNNING).update(
        status=status, result=result, error=error, progress=1.0, finished_at=timezone.now())


def _fail_stale(user) -> None:
    cutoff = timezone.now() - timedelta(seconds=TIME_LIMIT_S + 60)
    EngineJob.objects.filter(user=user, status=SweepStatus.RUNNING, started_at__lt=cutoff).update(
        status=SweepStatus.FAILED, finished_at=timezone.now(),
        error={"detail": "The worker running this simulation stopped; start it again.", "fields": {}})


def engine_job_get(*, user, job_id) -> EngineJob:
    _fail_stale(user)
    job = EngineJob.objects.filter(user=user, id=job_id).first()
    if job is None:
        raise NotFound("No such simulation of yours.")
    return job


def engine_job_list(*, user, limit: int = 20) -> list[EngineJob]:
    _fail_stale(user)
    return list(EngineJob.objects.filter(user=user).defer("result")[:limit])


def engine_job_cancel(*, user, job_id) -> EngineJob:
    job = engine_job_get(user=user, job_id=job_id)
    EngineJob.objects.filter(id=job.id, status__in=ACTIVE).update(status=SweepStatus.CANCELLED,
                                                                  finished_at=timezone.now())
    job.refresh_from_db()
    return job
