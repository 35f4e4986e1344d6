"""Celery entry points for sweeps and background engine runs: take ids, call the service. Senders enqueue them by name (sweeps.CHUNK_TASK,
sweeps.WATCHDOG_TASK; beat sends the watchdog on the schedule in settings.CELERY_BEAT_SCHEDULE)."""

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from apps.simulators.engine_jobs import ENGINE_JOB_TASK, TIME_LIMIT_S, engine_job_run
from apps.simulators.sweeps import (
    CHUNK_TASK,
    WATCHDOG_TASK,
    sweep_chunk_run,
    sweep_dispatch_for_job,
    sweep_job_fail,
    sweep_watchdog,
)

logger = logging.getLogger(__name__)

# A chunk is sized for about two seconds of CPU; these limits stay below the broker's visibility timeout
# (CELERY_BROKER_TRANSPORT_OPTIONS), so a running chunk is never handed to a second worker.
CHUNK_SOFT_TIME_LIMIT_S = 45
CHUNK_TIME_LIMIT_S = 55


@shared_task(name=CHUNK_TASK, acks_late=True, reject_on_worker_lost=True,
             soft_time_limit=CHUNK_SOFT_TIME_LIMIT_S, time_limit=CHUNK_TIME_LIMIT_S,
             autoretry_for=(OperationalError, InterfaceError), max_retries=3, retry_backoff=True,
             retry_backoff_max=30)
def sweep_chunk_task(job_id: str, chunk: int) -> int:
    try:
        stored = sweep_chunk_run(job_id=job_id, chunk=chunk)
    except (OperationalError, InterfaceError):
        raise  # may heal: autoretry
    except SoftTimeLimitExceeded:
        sweep_job_fail(job_id=job_id, reason=f"Chunk {chunk} ran past the {CHUNK_SOFT_TIME_LIMIT_S} s limit per "
                                             "chunk: its points are much slower than estimated.")
        stored = 0
    except Exception as exc:  # a bug must fail the job, not leave it running
        logger.exception("sweep %s chunk %s failed", job_id, chunk)
        sweep_job_fail(job_id=job_id, reason=f"Chunk {chunk} failed: {exc}")
        stored = 0
    sweep_dispatch_for_job(job_id=job_id)  # send this user's next chunk (fairness: a few at a time per user)
    return stored


@shared_task(name=WATCHDOG_TASK, acks_late=True, time_limit=CHUNK_TIME_LIMIT_S)
def sweep_watchdog_task() -> int:
    """Runs every 20 s on beat: re-sends the chunks of stalled sweeps, fails those that stay stalled."""
    return sweep_watchdog(now=timezone.now())


@shared_task(name=ENGINE_JOB_TASK, acks_late=True, time_limit=TIME_LIMIT_S, soft_time_limit=TIME_LIMIT_S - 10)
def engine_job_task(job_id: str) -> None:
    engine_job_run(job_id=job_id)
