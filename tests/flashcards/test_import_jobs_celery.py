"""An import job on a real Celery worker process (real Redis, the test database): sent on commit, claimed, done."""

import time

import pytest

from tests.celery_workers import one_worker
from tests.flashcards.test_anki_import import build_package

pytestmark = [pytest.mark.celery_worker, pytest.mark.xdist_group("celery"), pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(settings, django_db_blocker):
    with one_worker(settings, django_db_blocker, "imports") as proc:
        yield proc


def test_an_uploaded_package_is_imported_by_a_worker(learner_client, worker):
    package = build_package(legacy=False)["bytes"]
    job = learner_client.post("/api/v1/flashcards/imports/?format=apkg", package,
                              content_type="application/octet-stream").json()
    deadline = time.monotonic() + 60
    while (body := learner_client.get(job["url"]).json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    assert body["status"] == "done" and body["result"]["cards"] == 4 and body["progress"] == 1, body
