"""Exports as background jobs: the web request makes a queued job and answers 202; a worker writes the learner's
collection to the job's stored file (apps.flashcards.tasks) and the learner polls the job, then downloads the file,
streamed from the database a chunk at a time.

An Anki package of a 20,000-card collection with 88,925 reviews costs about 6 s of CPU to build
(benchmarks/bench_import.py --mb 44): in the request it held a web worker that long. The worker writes the file as the writers allow: the JSON and CSV a card at a time, the package to a
temporary file on disk (its SQLite collection is built on disk too), each stored CHUNK_BYTES at a time, so neither
the worker nor a download holds the whole file. One export per learner is queued or running at a time (a second is a
Conflict, 409). A finished export is kept for KEEP_HOURS, and a learner keeps the newest KEEP: older ones are deleted
when the learner starts, lists or opens an export, and every hour by the beat task (prune_exports_task).
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.utils import timezone

from apps.core.exceptions import Conflict, InvalidInput
from apps.flashcards.interchange import anki_export, collection
from apps.flashcards.interchange.jobs import (
    ACTIVE,
    StoredFile,
    append_file,
    claim,
    fail_stale,
    finish,
    job_body,
    learner_job,
    one_active,
    send,
)
from apps.flashcards.models import ExportFormat, ExportJob, JobStatus
from apps.flashcards.state import iso

logger = logging.getLogger(__name__)

EXPORT_TASK = "flashcards.export_collection"  # sent by name: the task module imports this one
PRUNE_TASK = "flashcards.prune_exports"
KEEP, KEEP_HOURS = 5, 24
# Written and read back 2 MB at a time, not the 8 MB of an upload: each statement holds its chunk several times over
# (escaped in the query, the driver's copies), which took the 20,000-card JSON export's worker past 100 MB of growth
# at 8 MB; PostgreSQL rewrites the stored value on each append, cheap at these sizes (tens of MB).
CHUNK_BYTES = 2 * 1024 * 1024
# The synchronous export (GET /flashcards/export/) answers for collections up to this size; larger ones are jobs.
SYNC_MAX_CARDS = 2_000
FILES = {ExportFormat.JSON: ("flashcards.json", "application/json"),
         ExportFormat.CSV: ("flashcards.csv", "text/csv; charset=utf-8"),
         ExportFormat.APKG: ("flashcards.apkg", "application/octet-stream")}


def export_job_create(*, user, fmt: str) -> ExportJob:
    """A queued export of the learner's collection, sent to a worker."""
    if fmt not in ExportFormat.values:
        raise InvalidInput(f"format is one of {', '.join(ExportFormat.values)}.", field="format")
    _fail_stale(user)
    _prune(user, keep=KEEP - 1)  # with the new one, the newest KEEP
    with one_active(ExportJob, user=user, noun="export", field="format"):
        job = ExportJob.objects.create(user=user, format=fmt)
    send(EXPORT_TASK, job)
    return job


def export_job_run(*, job_id: uuid.UUID | str) -> ExportJob | None:
    """Claims a queued export and writes its file; safe to run twice (a claimed job is left alone)."""
    job = claim(ExportJob, job_id)
    if job is None:
        return None
    try:
        cards, size = _write(job, job.started_at or timezone.now())
    except Exception:  # a bug, not the learner's doing: the learner is told, the log has the trace
        logger.exception("export job %s failed", job.id)
        finish(job, JobStatus.FAILED, error={"detail": "The export failed on our side; start it again.", "fields": {}})
    else:
        finish(job, JobStatus.DONE, keep_file=True, cards=cards, file_bytes=size)
    return job


def _write(job: ExportJob, now: datetime) -> tuple[int, int]:
    """Writes the job's file; returns (cards, bytes)."""
    user = job.user
    if job.format == ExportFormat.APKG:
        with tempfile.TemporaryFile() as package:
            cards = anki_export.write_apkg(user=user, target=package, now=now)
            _set_progress(job, 0.6)
            chunks = math.ceil(os.fstat(package.fileno()).st_size / CHUNK_BYTES)
            package.seek(0)
            return cards, _store(job, iter(lambda: package.read(CHUNK_BYTES), b""), expected=chunks, start=0.6)
    cards = collection.learner_cards(user).count()
    if job.format == ExportFormat.CSV:
        lines = (line.encode() for line in anki_export.csv_lines(user=user))
        return cards, _store(job, lines, expected=cards + 6)  # six header lines, then a record per card
    return cards, _store(job, collection.export_json(user=user, now=now), expected=cards + 2)  # head, cards, tail


def _store(job: ExportJob, pieces: Iterable[bytes], *, expected: int, start: float = 0.1) -> int:
    """Appends the pieces to the job's file CHUNK_BYTES at a time; after each chunk the job's progress moves from
    ``start`` towards 1 by the share of the ``expected`` pieces written. Returns the bytes written."""
    buffer: list[bytes] = []
    buffered = written = 0
    for count, piece in enumerate(pieces, start=1):
        buffer.append(piece)
        buffered += len(piece)
        if buffered >= CHUNK_BYTES:
            written += append_file(job, [b"".join(buffer)])
            buffer, buffered = [], 0
            _set_progress(job, start + (0.95 - start) * min(1.0, count / max(expected, 1)))
    if buffer:
        written += append_file(job, [b"".join(buffer)])
    return written


def _set_progress(job: ExportJob, progress: float) -> None:
    ExportJob.objects.filter(pk=job.pk).update(progress=round(progress, 3))


def _fail_stale(user) -> None:
    fail_stale(ExportJob, user, "The worker writing this export stopped; start it again.")


def _prune(user, *, keep: int = KEEP) -> None:
    """Deletes the learner's finished exports but the newest ``keep`` of the last KEEP_HOURS, files and all."""
    finished = ExportJob.objects.filter(user=user).exclude(status__in=ACTIVE)
    recent = finished.filter(finished_at__gte=timezone.now() - timedelta(hours=KEEP_HOURS))
    finished.exclude(id__in=list(recent.values_list("id", flat=True)[:keep])).delete()


def prune_exports() -> int:
    """Deletes every learner's exports finished more than KEEP_HOURS ago; returns how many."""
    cutoff = timezone.now() - timedelta(hours=KEEP_HOURS)
    return ExportJob.objects.exclude(status__in=ACTIVE).filter(finished_at__lt=cutoff).delete()[0]


def export_job_get(*, user, job_id) -> ExportJob:
    _fail_stale(user)
    _prune(user)
    return learner_job(ExportJob, user=user, job_id=job_id, missing="No such export of yours.")


def export_jobs(*, user, limit: int = 20) -> list[ExportJob]:
    _fail_stale(user)
    _prune(user)
    return list(ExportJob.objects.defer("file").filter(user=user)[:limit])


def export_file(*, user, job_id) -> tuple[ExportJob, StoredFile]:
    """A finished export and its file, to be read a chunk at a time; an unfinished one is a Conflict."""
    job = export_job_get(user=user, job_id=job_id)
    if job.status != JobStatus.DONE:
        state = "failed" if job.status == JobStatus.FAILED else "not finished yet"
        raise Conflict(f"This export is {state} ({job.status}); download it once its status is done.")
    return job, StoredFile(ExportJob, job.pk, CHUNK_BYTES)


def sync_export_check(*, user) -> None:
    """The synchronous export builds the file in the web request: only for collections up to SYNC_MAX_CARDS."""
    cards = collection.learner_cards(user).count()
    if cards > SYNC_MAX_CARDS:
        raise Conflict(f"Your collection has {cards:,} cards; an export of more than {SYNC_MAX_CARDS:,} runs in the "
                       "background: POST /api/v1/flashcards/exports/ with its format, then download its file.",
                       field="format")


def export_job_body(job: ExportJob) -> dict:
    url = f"/api/v1/flashcards/exports/{job.id}/"
    done = job.status == JobStatus.DONE
    expires = job.finished_at + timedelta(hours=KEEP_HOURS) if done and job.finished_at else None
    return {**job_body(job, url), "cards": job.cards, "file_bytes": job.file_bytes,
            "filename": FILES[ExportFormat(job.format)][0], "file_url": f"{url}file/" if done else None,
            "expires_at": iso(expires)}
