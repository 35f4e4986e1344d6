"""An export job on a real Celery worker process (real Redis, the test database): sent on commit, claimed, written,
then downloaded."""

import io
import time
import zipfile

import pytest
from django.utils import timezone

from tests.celery_workers import one_worker

pytestmark = [pytest.mark.celery_worker, pytest.mark.xdist_group("celery"), pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(settings, django_db_blocker):
    with one_worker(settings, django_db_blocker, "exports") as proc:
        yield proc


def test_an_anki_package_export_is_written_by_a_worker(content, learner_client, worker):
    from apps.flashcards.services import deck_add

    deck_add(user=learner_client.user, slug="all", now=timezone.now())
    job = learner_client.post("/api/v1/flashcards/exports/", {"format": "apkg"}, format="json").json()
    deadline = time.monotonic() + 60
    while (body := learner_client.get(job["url"]).json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    assert body["status"] == "done" and body["progress"] == 1 and body["cards"] > 0, body
    download = learner_client.get(body["file_url"])
    package = b"".join(download.streaming_content)
    assert len(package) == body["file_bytes"] and "collection.anki2" in zipfile.ZipFile(io.BytesIO(package)).namelist()
