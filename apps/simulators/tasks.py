"""Celery entry points for sweeps: take ids, call the service. Senders enqueue them by name (sweeps.CHUNK_TASK)."""

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from apps.simulators.sweeps import CHUNK_TASK, sweep_chunk_run, sweep_job_fail, sweep_watchdog

logger = logging.getLogger(__name__)


@shared_task(name=CHUNK_TASK, acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError, InterfaceError), max_retries=3, retry_backoff=True,
             retry_backoff_max=30)
def sweep_chunk_task(job_id: str, chunk: int) -> int:
    try:
        return sweep_chunk_run(job_id=job_id, chunk=chunk)
    except (OperationalError, InterfaceError):
        raise  # may heal: autoretry
    except Exception as exc:  # a bug must fail the job, not leave it running
        logger.exception("sweep %s chunk %s failed", job_id, chunk)
        sweep_job_fail(job_id=job_id, reason=f"Chunk {chunk} failed: {exc}")
        return 0


@shared_task(name="simulators.sweep_watchdog", acks_late=True)
def sweep_watchdog_task() -> int:
    """Schedule with beat (e.g. every minute) to fail jobs whose workers were lost."""
    return sweep_watchdog(now=timezone.now())
