"""Imports as background jobs: the web request stores the upload and answers 202 with the job; a worker imports it
(apps.flashcards.tasks) and the learner polls the job for its progress and result.

A 3 MB Anki package costs tens of seconds of CPU to import: in the request it held a web worker that long, and
three at once held three. Here the request only writes the bytes. One import per learner is queued or running at a
time (a database constraint: a second is a Conflict, 409). The import itself is the same function as before, all or
nothing: a refused file leaves the collection as it was and the job says why, by field. A job whose worker died
mid-way is marked failed once it has run past the task's time limit.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import BinaryIO

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from rest_framework.exceptions import ParseError

from apps.core.exceptions import Conflict, DomainError, InvalidInput, NotFound
from apps.core.parsers import StreamedJSON
from apps.flashcards.interchange import anki_import, collection, csv_import
from apps.flashcards.models import ImportFormat, ImportJob, JobStatus
from apps.flashcards.state import iso

logger = logging.getLogger(__name__)

IMPORT_TASK = "flashcards.import_collection"  # sent by name: the task module imports this one
TIME_LIMIT_S = 600
MAX_UPLOAD_BYTES = {ImportFormat.JSON: 100 * 1024 * 1024, ImportFormat.APKG: anki_import.MAX_BYTES,
                    ImportFormat.CSV: csv_import.MAX_BYTES}
ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
CHUNK_BYTES = 8 * 1024 * 1024


@dataclass
class Upload:
    """A file as the request sent it: where it waits (a spooled temporary file) and its size in bytes."""

    file: BinaryIO
    size: int


# Appends a chunk to the stored upload. SQLite's || makes text of blobs: the cast gives the same bytes back.
APPEND_SQL = {"postgresql": "UPDATE flashcards_importjob SET upload = upload || %s WHERE id = %s",
              "sqlite": "UPDATE flashcards_importjob SET upload = CAST(upload || %s AS BLOB) WHERE id = %s"}
# Reads CHUNK_BYTES of it from a 1-based offset.
SLICE_SQL = {"postgresql": "SELECT substring(upload from %s for %s) FROM flashcards_importjob WHERE id = %s",
             "sqlite": "SELECT substr(upload, %s, %s) FROM flashcards_importjob WHERE id = %s"}


def _job_key(job_id) -> object:
    """The job's id as the database stores it (SQLite: 32 hex digits), for the raw statements above."""
    return ImportJob._meta.pk.get_db_prep_value(job_id, connection)


class StoredUpload:
    """A job's stored upload, read from the database CHUNK_BYTES at a time (a stream with read()), so the worker
    never holds the whole file."""

    def __init__(self, job_id):
        self.key, self.offset, self.buffer = _job_key(job_id), 0, b""

    def read(self, size: int = -1) -> bytes:
        if not self.buffer:
            with connection.cursor() as cursor:
                cursor.execute(SLICE_SQL[connection.vendor], [self.offset + 1, CHUNK_BYTES, self.key])
                row = cursor.fetchone()
            self.buffer = bytes(row[0] or b"") if row else b""
            self.offset += len(self.buffer)
        size = len(self.buffer) if size is None or size < 0 else size
        chunk, self.buffer = self.buffer[:size], self.buffer[size:]
        return chunk


def import_job_create(*, user, fmt: str, upload: Upload) -> ImportJob:
    """Stores the upload (CHUNK_BYTES at a time, so the web worker holds one chunk, never the file) in a queued
    job and sends it to a worker once stored."""
    if fmt not in ImportFormat.values:
        raise InvalidInput(f"format is one of {', '.join(ImportFormat.values)}.", field="format")
    if not upload.size:
        raise InvalidInput("Send the file as the request body.", field="file")
    limit = MAX_UPLOAD_BYTES[ImportFormat(fmt)]
    if upload.size > limit:
        raise InvalidInput(f"The file is larger than {limit // 2**20} MB.", field="file")
    _fail_stale(user)
    try:
        with transaction.atomic():
            job = ImportJob.objects.create(user=user, format=fmt, upload=b"", upload_bytes=upload.size)
            with connection.cursor() as cursor:
                while chunk := upload.file.read(CHUNK_BYTES):
                    cursor.execute(APPEND_SQL[connection.vendor], [chunk, _job_key(job.pk)])
    except IntegrityError:
        running = ImportJob.objects.filter(user=user, status__in=ACTIVE).values_list("id", flat=True).first()
        raise Conflict(f"An import of yours is already {'running' if running else 'under way'} (job {running}); "
                       "wait for it to finish.", field="file") from None
    queue = settings.CELERY_TASK_DEFAULT_QUEUE  # read when sending, so a deployment (or a test) can move it
    transaction.on_commit(lambda: current_app.signature(IMPORT_TASK, args=(str(job.id),)).apply_async(queue=queue))
    return job


def import_job_run(*, job_id: uuid.UUID | str) -> ImportJob | None:
    """Claims a queued job and imports its file; safe to run twice (a claimed job is left alone)."""
    now = timezone.now()
    if not ImportJob.objects.filter(id=job_id, status=JobStatus.QUEUED).update(
            status=JobStatus.RUNNING, started_at=now, progress=0.1):
        return None
    job = ImportJob.objects.defer("upload").get(id=job_id)
    try:
        result = _import(job, now)
    except DomainError as exc:
        _finish(job, JobStatus.FAILED, error={"detail": exc.message, "fields": exc.fields})
    except ParseError as exc:  # the JSON reader's refusals (malformed, too deep, too large)
        _finish(job, JobStatus.FAILED, error={"detail": str(exc.detail), "fields": {"file": [str(exc.detail)]}})
    except Exception:  # a bug, not the file: the learner is told, the log has the trace
        logger.exception("import job %s failed", job.id)
        _finish(job, JobStatus.FAILED, error={"detail": "The import failed on our side; nothing was changed.",
                                              "fields": {}})
    else:
        _finish(job, JobStatus.DONE, result=result)
    return job


def _import(job: ImportJob, now: datetime) -> dict:
    if job.format in (ImportFormat.APKG, ImportFormat.CSV):  # read whole: a zip at random, a CSV's rows checked
        (data,) = ImportJob.objects.filter(pk=job.pk).values_list("upload", flat=True)  # first (20 MB at most each)
        read = anki_import.import_apkg if job.format == ImportFormat.APKG else csv_import.import_csv
        return read(user=job.user, data=bytes(data), now=now)
    limit = MAX_UPLOAD_BYTES[ImportFormat.JSON]
    document = StreamedJSON(StoredUpload(job.pk), limit, f"Import file too large (at most {limit // 2**20} MB).")
    return collection.import_json(user=job.user, document=document)


def _finish(job: ImportJob, status: str, *, result: dict | None = None, error: dict | None = None) -> None:
    job.status, job.result, job.error = status, result, error
    job.progress, job.upload, job.finished_at = 1.0, b"", timezone.now()
    job.save(update_fields=["status", "result", "error", "progress", "upload", "finished_at"])


def _fail_stale(user) -> None:
    """A job still running past the task's time limit lost its worker: it failed, and frees the learner's slot."""
    cutoff = timezone.now() - timedelta(seconds=TIME_LIMIT_S + 60)
    ImportJob.objects.filter(user=user, status=JobStatus.RUNNING, started_at__lt=cutoff).update(
        status=JobStatus.FAILED, progress=1.0, upload=b"", finished_at=timezone.now(),
        error={"detail": "The worker importing this file stopped; nothing was changed. Send the file again.",
               "fields": {}})


def import_job_get(*, user, job_id) -> ImportJob:
    _fail_stale(user)
    job = ImportJob.objects.defer("upload").filter(user=user, id=job_id).first()
    if job is None:
        raise NotFound("No such import of yours.")
    return job


def import_jobs(*, user, limit: int = 20) -> list[ImportJob]:
    _fail_stale(user)
    return list(ImportJob.objects.defer("upload").filter(user=user)[:limit])


def import_job_body(job: ImportJob) -> dict:
    return {"id": str(job.id), "format": job.format, "status": job.status, "progress": job.progress,
            "upload_bytes": job.upload_bytes, "result": job.result, "error": job.error,
            "created_at": iso(job.created_at), "started_at": iso(job.started_at),
            "finished_at": iso(job.finished_at), "url": f"/api/v1/flashcards/imports/{job.id}/"}
