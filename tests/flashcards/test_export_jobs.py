"""Exports as background jobs: the request makes a queued job and answers 202; the job (run here by calling the
worker's function, as the task does) writes the file into the job; the learner downloads it, streamed; one export
per learner at a time; another learner sees none of it."""

import csv
import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.flashcards.interchange import export_jobs, jobs
from apps.flashcards.models import ExportJob, ReviewLog, UserCard
from apps.flashcards.services import card_review, deck_add
from tests.flashcards.conftest import EXPORTS, export_file, import_file, new_review_id

pytestmark = pytest.mark.django_db


@pytest.fixture
def studied(content, learner_client, card_of):
    """Every content card in the collection, two of them reviewed."""
    user = learner_client.user
    deck_add(user=user, slug="all", now=timezone.now() - timedelta(days=2))
    for question in content["questions"][:2]:
        card_review(user=user, card_id=card_of("question", question).id, rating=3, review_id=new_review_id(),
                    now=timezone.now() - timedelta(days=1))
    return learner_client


def start(client, fmt: str = "json"):
    return client.post(EXPORTS, {"format": fmt}, format="json")


def collection_of(user) -> tuple[list, int]:
    cards = sorted(UserCard.objects.filter(user=user).values_list("card_id", "state", "reps"))
    return cards, ReviewLog.objects.filter(user_card__user=user).count()


def test_a_json_export_is_queued_then_written_by_the_job_and_imports_back(studied):
    response = start(studied)
    assert response.status_code == 202, response.json()
    job = response.json()
    assert job["status"] == "queued" and job["progress"] == 0 and job["file_url"] is None
    assert response["Location"] == job["url"] == f"{EXPORTS}{job['id']}/"
    assert ExportJob.objects.get(id=job["id"]).file == b""  # the request wrote nothing itself
    export_jobs.export_job_run(job_id=job["id"])
    done = studied.get(job["url"]).json()
    assert done["status"] == "done" and done["progress"] == 1.0 and done["error"] is None
    assert done["file_url"] == f"{job['url']}file/" and done["filename"] == "flashcards.json" and done["expires_at"]
    download = studied.get(done["file_url"])
    assert download.status_code == 200 and download["Content-Type"] == "application/json"
    assert download["Content-Disposition"] == 'attachment; filename="flashcards.json"'
    body = b"".join(download.streaming_content)
    assert int(download["Content-Length"]) == len(body) == done["file_bytes"]
    document = json.loads(body)
    assert len(document["cards"]) == done["cards"] == UserCard.objects.filter(user=studied.user).count()

    before = collection_of(studied.user)
    status, imported = import_file(studied, body, "json")
    assert status == 202 and imported["status"] == "done", imported
    assert collection_of(studied.user) == before  # the same cards and reviews, none twice


def test_an_anki_package_export_imports_back_with_no_duplicates(studied):
    job, package = export_file(studied, "apkg")
    assert job["progress"] == 1.0 and job["filename"] == "flashcards.apkg"
    assert "collection.anki2" in zipfile.ZipFile(io.BytesIO(package)).namelist()
    before = collection_of(studied.user)
    status, imported = import_file(studied, package, "apkg")
    assert status == 202 and imported["status"] == "done", imported
    assert imported["result"]["cards"] == 0  # every card is the kit's own, brought back in place
    assert collection_of(studied.user) == before


def test_a_csv_export_has_a_record_per_card(studied):
    job, data = export_file(studied, "csv")
    rows = list(csv.reader(line for line in data.decode().splitlines() if not line.startswith("#")))
    assert len(rows) == job["cards"] == UserCard.objects.filter(user=studied.user).count()
    assert studied.get(job["file_url"])["Content-Type"] == "text/csv; charset=utf-8"


def test_the_file_is_stored_and_streamed_a_chunk_at_a_time(studied, monkeypatch):
    """A chunk far smaller than the file: the worker appends it in many statements, progress moves as it does, and
    the download reads it back in as many; the bytes are those of the synchronous export."""
    monkeypatch.setattr(export_jobs, "CHUNK_BYTES", 50)
    seen = []
    set_progress = export_jobs._set_progress
    monkeypatch.setattr(export_jobs, "_set_progress", lambda job, value: (seen.append(value), set_progress(job, value)))
    _, data = export_file(studied, "csv")
    assert len(data) > 50 * 5 and len(seen) > 5 and seen == sorted(seen) and seen[-1] <= 0.95
    assert data == studied.get("/api/v1/flashcards/export/", {"format": "csv"}).content


def test_a_second_export_while_one_is_queued_is_a_conflict(studied, stranger):
    first = start(studied).json()
    second = start(studied, "apkg")
    assert second.status_code == 409 and "format" in second.json()["fields"], second.json()
    assert first["id"] in second.json()["detail"] and "already" in second.json()["detail"]
    assert start(stranger).status_code == 202  # one per learner, not one for the site
    export_jobs.export_job_run(job_id=first["id"])
    assert start(studied, "apkg").status_code == 202  # the slot is free again


def test_another_learner_can_neither_see_nor_download_an_export(studied, stranger):
    job, _ = export_file(studied, "json")
    assert stranger.get(job["url"]).status_code == 404
    assert stranger.get(job["file_url"]).status_code == 404
    assert stranger.get(EXPORTS).json() == []


def test_downloading_before_the_job_is_done_is_a_conflict(studied):
    job = start(studied).json()
    response = studied.get(f"{job['url']}file/")
    assert response.status_code == 409 and "queued" in response.json()["detail"], response.json()
    ExportJob.objects.filter(id=job["id"]).update(status="running")
    assert studied.get(f"{job['url']}file/").status_code == 409


def test_a_job_that_fails_says_so_and_keeps_no_file(studied, monkeypatch):
    def broken(**_):
        yield b"["
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(export_jobs.collection, "export_json", broken)
    job = start(studied).json()
    export_jobs.export_job_run(job_id=job["id"])
    failed = studied.get(job["url"]).json()
    assert failed["status"] == "failed" and failed["file_url"] is None and "our side" in failed["error"]["detail"]
    assert ExportJob.objects.get(id=job["id"]).file == b""
    assert studied.get(f"{job['url']}file/").status_code == 409
    assert export_jobs.export_job_run(job_id=job["id"]) is None  # a redelivered task changes nothing


@pytest.mark.parametrize("body, field", [
    ({"format": "json", "compress": True}, "compress"),
    ({"format": "xml"}, "format"),
    ({}, "format"),
])
def test_bad_requests_are_400_naming_the_field(learner_client, body, field):
    response = learner_client.post(EXPORTS, body, format="json")
    assert response.status_code == 400 and field in response.json()["fields"], response.json()
    assert not ExportJob.objects.exists()


def test_anonymous_callers_are_refused(api_client):
    assert api_client.post(EXPORTS, {"format": "json"}, format="json").status_code == 401
    assert api_client.get(EXPORTS).status_code == 401


def test_a_job_whose_worker_died_is_failed_and_frees_the_slot(studied):
    job = start(studied).json()
    ExportJob.objects.filter(id=job["id"]).update(
        status="running", started_at=timezone.now() - timedelta(seconds=jobs.TIME_LIMIT_S + 61))
    body = studied.get(job["url"]).json()
    assert body["status"] == "failed" and "stopped" in body["error"]["detail"]
    assert start(studied).status_code == 202


def test_finished_exports_are_kept_a_day_and_the_newest_five(studied):
    made = []
    for _ in range(7):
        made.append(start(studied).json()["id"])
        export_jobs.export_job_run(job_id=made[-1])
    assert [job["id"] for job in studied.get(EXPORTS).json()] == made[::-1][:5]
    ExportJob.objects.filter(id=made[-1]).update(finished_at=timezone.now() - timedelta(hours=25))
    assert studied.get(f"{EXPORTS}{made[-1]}/").status_code == 404  # expired: deleted, file and all
    ExportJob.objects.filter(id=made[-2]).update(finished_at=timezone.now() - timedelta(hours=25))
    assert export_jobs.prune_exports() == 1  # the hourly task, for learners who do not come back
    assert ExportJob.objects.count() == 3


def test_listing_exports_takes_a_fixed_number_of_queries(studied, django_assert_num_queries):
    for _ in range(3):
        export_jobs.export_job_run(job_id=start(studied).json()["id"])
    with django_assert_num_queries(4):  # the stale check, the prune (its read and its delete), the list
        assert len(studied.get(EXPORTS).json()) == 3


def test_the_synchronous_export_refuses_large_collections(studied, monkeypatch):
    monkeypatch.setattr(export_jobs, "SYNC_MAX_CARDS", 2)
    response = studied.get("/api/v1/flashcards/export/", {"format": "apkg"})
    assert response.status_code == 409 and "/api/v1/flashcards/exports/" in response.json()["detail"]


def test_a_stored_file_chunk_stays_out_of_the_debug_query_log(learner_client):
    """With DEBUG on Django logs each statement with its parameters written out, for the life of a worker: a file's
    chunks, appended there, would be held twice over (the 40.7 MiB export grew a worker by 112 MB)."""
    job = ExportJob.objects.create(user=learner_client.user, format="json")
    chunk = b"\xab" * 200_000
    with CaptureQueriesContext(connection) as logged:
        jobs.append_file(job, [chunk, chunk])
        stored = jobs.StoredFile(ExportJob, job.pk).read()
    assert bytes(stored) == chunk * 2
    assert logged.captured_queries, "the read is logged as usual"
    assert max(len(query["sql"]) for query in logged.captured_queries) < 1_000
