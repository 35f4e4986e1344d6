"""Imports as background jobs: the request stores the file and answers 202 with the job; the job (run here by
calling the worker's function, as the task does) imports it all or nothing; one import per learner at a time."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.flashcards.interchange import jobs
from apps.flashcards.models import ImportJob, OwnNote, UserCard
from tests.flashcards.conftest import exported_json
from tests.flashcards.test_anki_import import build_package

pytestmark = pytest.mark.django_db
URL = "/api/v1/flashcards/imports/"


@pytest.fixture(scope="module")
def package() -> bytes:
    return build_package(legacy=False)["bytes"]


def send(client, body: bytes, fmt: str = "apkg"):
    return client.post(f"{URL}?format={fmt}", body, content_type="application/octet-stream")


def run(client, job_id: str) -> dict:
    jobs.import_job_run(job_id=job_id)
    return client.get(f"{URL}{job_id}/").json()


def test_an_anki_package_is_stored_then_imported_by_the_job(content, learner_client, package):
    response = send(learner_client, package)
    assert response.status_code == 202, response.json()
    job = response.json()
    assert job["status"] == "queued" and job["progress"] == 0 and job["upload_bytes"] == len(package)
    assert response["Location"] == job["url"] == f"{URL}{job['id']}/"
    assert not OwnNote.objects.filter(user=learner_client.user)  # the request imported nothing itself
    done = run(learner_client, job["id"])
    assert done["status"] == "done" and done["progress"] == 1 and done["error"] is None
    assert done["result"]["cards"] == 4 and done["result"]["skipped"] == 0
    assert OwnNote.objects.filter(user=learner_client.user).count() == 4  # one own card per Anki card
    assert ImportJob.objects.get(id=job["id"]).file == b""  # the file is not kept once imported
    assert learner_client.get(URL).json()[0]["id"] == job["id"]


def test_our_json_export_comes_back_through_a_job(content, learner_client, card_of):
    from apps.flashcards.services import deck_add

    deck_add(user=learner_client.user, slug="all", now=timezone.now())
    held = UserCard.objects.filter(user=learner_client.user).count()
    import json

    body = json.dumps(exported_json(learner_client)).encode()
    done = run(learner_client, send(learner_client, body, "json").json()["id"])
    assert done["status"] == "done" and done["result"]["cards"] == held


def test_a_second_import_while_one_is_queued_is_a_conflict(content, learner_client, package, make_user):
    first = send(learner_client, package).json()
    second = send(learner_client, package)
    assert second.status_code == 409 and "file" in second.json()["fields"], second.json()
    assert first["id"] in second.json()["detail"]
    stranger = make_user("someone-else")
    from rest_framework.test import APIClient

    other = APIClient()
    other.force_authenticate(stranger)
    assert send(other, package).status_code == 202  # one per learner, not one for the site
    assert other.get(f"{URL}{first['id']}/").status_code == 404  # and each sees only their own
    run(learner_client, first["id"])
    assert send(learner_client, package).status_code == 202  # the slot is free again


def test_a_refused_file_fails_the_job_naming_the_field_and_imports_nothing(content, learner_client):
    done = run(learner_client, send(learner_client, b"not a zip file").json()["id"])
    assert done["status"] == "failed" and done["result"] is None
    assert "file" in done["error"]["fields"] and done["error"]["detail"]
    assert not OwnNote.objects.filter(user=learner_client.user)
    broken = run(learner_client, send(learner_client, b'{"format": "llmkit-flashcards", "cards": [', "json").json()["id"])
    assert broken["status"] == "failed" and "file" in broken["error"]["fields"]


def test_a_zstd_bomb_sent_as_a_job_fails_it_without_being_unpacked(content, learner_client):
    """1 GiB of zeros in a few kilobytes, as an Anki package's collection: refused at the unpacking limit, in bounded
    memory, naming the file; the learner's collection is untouched."""
    import tracemalloc

    from tests.flashcards.test_anki_import import _zip, _zstd_bomb

    body = _zip(meta=b"\x08\x03", collection_anki21b=_zstd_bomb(1 << 30))
    response = send(learner_client, body)
    assert response.status_code == 202 and len(body) < 100_000
    tracemalloc.start()
    try:
        done = run(learner_client, response.json()["id"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert done["status"] == "failed" and "file" in done["error"]["fields"], done
    assert "too large once unpacked (at most 64 MB)" in done["error"]["detail"]
    assert peak < 200 * 2**20, f"{peak / 2**20:.0f} MiB held while refusing the bomb"
    assert not OwnNote.objects.filter(user=learner_client.user) and not UserCard.objects.filter(user=learner_client.user)


@pytest.mark.parametrize("query, body, field", [
    ("format=xml", b"x", "format"),
    ("", b"x", "format"),
    ("format=", b"x", "format"),
    ("format=apkg", b"", "file"),
])
def test_bad_requests_are_400_naming_the_field(learner_client, query, body, field):
    response = learner_client.post(f"{URL}?{query}", body, content_type="application/octet-stream")
    assert response.status_code == 400 and field in response.json()["fields"], response.json()


def test_too_large_for_its_format(learner_client, monkeypatch):
    monkeypatch.setitem(jobs.MAX_UPLOAD_BYTES, "apkg", 10)
    response = send(learner_client, b"x" * 11)
    assert response.status_code == 400 and "file" in response.json()["fields"]
    assert not ImportJob.objects.exists()


def test_anonymous_callers_are_refused(api_client, package):
    assert send(api_client, package).status_code == 401
    assert api_client.get(URL).status_code == 401


def test_a_job_whose_worker_died_is_failed_and_frees_the_slot(content, learner_client, package):
    job = send(learner_client, package).json()
    ImportJob.objects.filter(id=job["id"]).update(status="running",
                                                  started_at=timezone.now() - timedelta(seconds=jobs.TIME_LIMIT_S + 61))
    body = learner_client.get(f"{URL}{job['id']}/").json()
    assert body["status"] == "failed" and "stopped" in body["error"]["detail"]
    assert send(learner_client, package).status_code == 202
    assert jobs.import_job_run(job_id=job["id"]) is None  # a late redelivery of the dead job changes nothing


def test_the_upload_is_stored_a_chunk_at_a_time_byte_for_byte(content, learner_client, monkeypatch):
    """The request reads the body into a spooled file and appends it to the job a chunk at a time (7 bytes here, so
    a short body takes several); every byte arrives, NULs and bytes that are not UTF-8 included."""
    monkeypatch.setattr(jobs, "CHUNK_BYTES", 7)
    body = bytes(range(256)) * 3 + b"\x00\xff"
    response = send(learner_client, body)
    assert response.status_code == 202, response.json()
    assert bytes(ImportJob.objects.get(id=response.json()["id"]).file) == body


def test_sqlite_appends_blobs_byte_for_byte():
    """SQLite's || makes text of two blobs; the statement casts the result back to the same bytes."""
    import sqlite3

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE flashcards_importjob (id integer, file blob)")
    db.execute("INSERT INTO flashcards_importjob VALUES (1, x'')")
    chunks = [b"\x00\xff\xfe", bytes(range(256)), b"\x80\x00"]
    statement = jobs.APPEND_SQL["sqlite"].replace("{table}", "flashcards_importjob").replace("%s", "?")
    for chunk in chunks:
        db.execute(statement, (chunk, 1))
    assert db.execute("SELECT file, typeof(file) FROM flashcards_importjob").fetchone() == (b"".join(chunks), "blob")
