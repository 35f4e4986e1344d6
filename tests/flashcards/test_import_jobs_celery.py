"""An import job on a real Celery worker process (real Redis, the test database): sent on commit, claimed, done."""

import os
import time
import uuid

import pytest

from tests.celery_workers import database_url, start_worker
from tests.flashcards.test_anki_import import build_package

pytestmark = [pytest.mark.celery_worker, pytest.mark.xdist_group("celery"), pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(settings, django_db_blocker):
    from config.celery import app

    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    with django_db_blocker.unblock():
        db_url = database_url()
    queue = f"imports-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": db_url, "CELERY_BROKER_URL": url, "CELERY_RESULT_BACKEND": url,
           "CELERY_TASK_DEFAULT_QUEUE": queue, "CELERY_TASK_ALWAYS_EAGER": "false"}
    proc = start_worker(env, queue, 0)
    settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_BROKER_URL, settings.CELERY_TASK_ALWAYS_EAGER = queue, url, False
    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url, app.conf.task_always_eager = url, False
    yield proc
    app.conf.broker_url, app.conf.task_always_eager = old
    proc.kill()
    proc.wait(timeout=10)


def test_an_uploaded_package_is_imported_by_a_worker(learner_client, worker):
    package = build_package(legacy=False)["bytes"]
    job = learner_client.post("/api/v1/flashcards/imports/?format=apkg", package,
                              content_type="application/octet-stream").json()
    deadline = time.monotonic() + 60
    while (body := learner_client.get(job["url"]).json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    assert body["status"] == "done" and body["result"]["cards"] == 4 and body["progress"] == 1, body
