"""Imports as background jobs, and the machinery exports share with them (export_jobs.py): a job's file stored in its
row a chunk at a time and read back the same way, the claim of a queued job, one queued or running job of a kind per
learner, a job whose worker died marked failed.

Imports: the web request stores the upload and answers 202 with the job; a worker imports it
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
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import BinaryIO, TypeVar

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from rest_framework.exceptions import ParseError

from apps.core.exceptions import Conflict, DomainError, InvalidInput, NotFound
from apps.core.parsers import StreamedJSON
from apps.flashcards.interchange import anki_import, collection, csv_import
from apps.flashcards.models import FileJob, ImportFormat, ImportJob, JobStatus
from apps.flashcards.state import iso

logger = logging.getLogger(__name__)

IMPORT_TASK = "flashcards.import_collection"  # sent by name: the task module imports this one
TIME_LIMIT_S = 600
MAX_UPLOAD_BYTES = {ImportFormat.JSON: 100 * 1024 * 1024, ImportFormat.APKG: anki_import.MAX_BYTES,
                    ImportFormat.CSV: csv_import.MAX_BYTES}
ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
CHUNK_BYTES = 8 * 1024 * 1024
F = TypeVar("F", bound=FileJob)


@dataclass
class Upload:
    """A file as the request sent it: where it waits (a spooled temporary file) and its size in bytes."""

    file: BinaryIO
    size: int


# Appends a chunk to a job's stored file. SQLite's || makes text of blobs: the cast gives the same bytes back.
APPEND_SQL = {"postgresql": "UPDATE {table} SET file = file || %s WHERE id = %s",
              "sqlite": "UPDATE {table} SET file = CAST(file || %s AS BLOB) WHERE id = %s"}
# Reads CHUNK_BYTES of it from a 1-based offset.
SLICE_SQL = {"postgresql": "SELECT substring(file from %s for %s) FROM {table} WHERE id = %s",
             "sqlite": "SELECT substr(file, %s, %s) FROM {table} WHERE id = %s"}


def _sql(statements: dict[str, str], model: type[FileJob]) -> str:
    return statements[connection.vendor].replace("{table}", model._meta.db_table)


def _job_key(model: type[FileJob], job_id) -> object:
    """The job's id as the database stores it (SQLite: 32 hex digits), for the raw statements above."""
    return model._meta.pk.get_db_prep_value(job_id, connection)


class StoredFile:
    """A job's stored file, read from the database a chunk at a time (CHUNK_BYTES unless told; a stream with read()),
    so neither the worker nor a download holds the whole file."""

    def __init__(self, model: type[FileJob], job_id, chunk_bytes: int | None = None):
        self.model, self.key, self.offset = model, _job_key(model, job_id), 0
        self.chunk_bytes = chunk_bytes or CHUNK_BYTES
        self.buffer, self.position = b"", 0  # the chunk read last, and how much of it was handed out

    def read(self, size: int = -1) -> bytes:
        if self.position >= len(self.buffer):
            with connection.cursor() as cursor:
                cursor.execute(_sql(SLICE_SQL, self.model), [self.offset + 1, self.chunk_bytes, self.key])
                row = cursor.fetchone()
            self.buffer, self.position = (bytes(row[0] or b"") if row else b""), 0
            self.offset += len(self.buffer)
        end = len(self.buffer) if size is None or size < 0 else self.position + size
        chunk, self.position = self.buffer[self.position:end], min(end, len(self.buffer))
        return chunk


@contextmanager
def _unlogged_cursor() -> Iterator:
    """A cursor whose statements stay out of DEBUG's query log: the log keeps each statement with its parameters
    written out, so a 2 MB chunk appended to a file is held there as a 4 MB hex string until the log is reset,
    which a worker never does (a 40.7 MiB JSON export job, DEBUG on, grew by 112 MB logged and 23 MB unlogged)."""
    with connection.cursor() as logged:
        yield connection.make_cursor(logged.cursor)


def append_file(job: FileJob, chunks: Iterable[bytes]) -> int:
    """Appends the chunks to the job's stored file, each in one statement; returns the bytes appended."""
    model, appended = type(job), 0
    with _unlogged_cursor() as cursor:
        for chunk in chunks:
            cursor.execute(_sql(APPEND_SQL, model), [chunk, _job_key(model, job.pk)])
            appended += len(chunk)
    return appended


def claim(model: type[F], job_id) -> F | None:
    """The queued job, now running; None when it is not queued (claimed already: a redelivered task does nothing)."""
    if not model.objects.filter(id=job_id, status=JobStatus.QUEUED).update(
            status=JobStatus.RUNNING, started_at=timezone.now(), progress=0.1):
        return None
    return model.objects.defer("file").get(id=job_id)


def finish(job: FileJob, status: str, *, keep_file: bool = False, **fields) -> None:
    """Marks the job finished (done or failed) with its other fields (result, error, ...); drops the stored file
    unless it is what the job made."""
    fields = {"status": status, "progress": 1.0, "finished_at": timezone.now(), **fields}
    if not keep_file:
        fields["file"] = b""
    for name, value in fields.items():
        setattr(job, name, value)
    job.save(update_fields=list(fields))


def fail_stale(model: type[FileJob], user, detail: str) -> None:
    """A job still running past the task's time limit lost its worker: it failed, and frees the learner's slot."""
    cutoff = timezone.now() - timedelta(seconds=TIME_LIMIT_S + 60)
    model.objects.filter(user=user, status=JobStatus.RUNNING, started_at__lt=cutoff).update(
        status=JobStatus.FAILED, progress=1.0, file=b"", finished_at=timezone.now(),
        error={"detail": detail, "fields": {}})


def learner_job(model: type[F], *, user, job_id, missing: str) -> F:
    """One of the learner's jobs, without its file; another learner's is missing too (404, not 403)."""
    job = model.objects.defer("file").filter(user=user, id=job_id).first()
    if job is None:
        raise NotFound(missing)
    return job


def send(task: str, job: FileJob) -> None:
    """Sends the job to a worker once the transaction that made it commits."""
    queue = settings.CELERY_TASK_DEFAULT_QUEUE  # read when sending, so a deployment (or a test) can move it
    transaction.on_commit(lambda: current_app.signature(task, args=(str(job.id),)).apply_async(queue=queue))


def job_body(job: FileJob, url: str) -> dict:
    """The fields every job answers with; each kind adds its own."""
    return {"id": str(job.id), "format": job.format, "status": job.status, "progress": job.progress,
            "error": job.error, "created_at": iso(job.created_at), "started_at": iso(job.started_at),
            "finished_at": iso(job.finished_at), "url": url}


@contextmanager
def one_active(model: type[FileJob], *, user, noun: str, field: str) -> Iterator[None]:
    """Makes a job inside; the learner's second queued or running job of the kind breaks the model's constraint, and
    is a Conflict (409) naming the first."""
    try:
        with transaction.atomic():
            yield
    except IntegrityError:
        running = model.objects.filter(user=user, status__in=ACTIVE).values_list("id", flat=True).first()
        raise Conflict(f"An {noun} of yours is already {'running' if running else 'under way'} (job {running}); "
                       "wait for it to finish.", field=field) from None


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
    with one_active(ImportJob, user=user, noun="import", field="file"):
        job = ImportJob.objects.create(user=user, format=fmt, file=b"", file_bytes=upload.size)
        append_file(job, iter(lambda: upload.file.read(CHUNK_BYTES), b""))
    send(IMPORT_TASK, job)
    return job


def import_job_run(*, job_id: uuid.UUID | str) -> ImportJob | None:
    """Claims a queued job and imports its file; safe to run twice (a claimed job is left alone)."""
    job = claim(ImportJob, job_id)
    if job is None:
        return None
    try:
        result = _import(job, job.started_at or timezone.now())
    except DomainError as exc:
        finish(job, JobStatus.FAILED, error={"detail": exc.message, "fields": exc.fields})
    except ParseError as exc:  # the JSON reader's refusals (malformed, too deep, too large)
        finish(job, JobStatus.FAILED, error={"detail": str(exc.detail), "fields": {"file": [str(exc.detail)]}})
    except Exception:  # a bug, not the file: the learner is told, the log has the trace
        logger.exception("import job %s failed", job.id)
        finish(job, JobStatus.FAILED, error={"detail": "The import failed on our side; nothing was changed.",
                                             "fields": {}})
    else:
        finish(job, JobStatus.DONE, result=result)
    return job


def _import(job: ImportJob, now: datetime) -> dict:
    if job.format in (ImportFormat.APKG, ImportFormat.CSV):  # read whole: a zip at random, a CSV's rows checked
        (data,) = ImportJob.objects.filter(pk=job.pk).values_list("file", flat=True)  # first (20 MB at most each)
        read = anki_import.import_apkg if job.format == ImportFormat.APKG else csv_import.import_csv
        return read(user=job.user, data=bytes(data), now=now)
    limit = MAX_UPLOAD_BYTES[ImportFormat.JSON]
    document = StreamedJSON(StoredFile(ImportJob, job.pk), limit,
                            f"Import file too large (at most {limit // 2**20} MB).")
    return collection.import_json(user=job.user, document=document)


def _fail_stale(user) -> None:
    fail_stale(ImportJob, user, "The worker importing this file stopped; nothing was changed. Send the file again.")


def import_job_get(*, user, job_id) -> ImportJob:
    _fail_stale(user)
    return learner_job(ImportJob, user=user, job_id=job_id, missing="No such import of yours.")


def import_jobs(*, user, limit: int = 20) -> list[ImportJob]:
    _fail_stale(user)
    return list(ImportJob.objects.defer("file").filter(user=user)[:limit])


def import_job_body(job: ImportJob) -> dict:
    return {**job_body(job, f"/api/v1/flashcards/imports/{job.id}/"), "upload_bytes": job.file_bytes,
            "result": job.result}
