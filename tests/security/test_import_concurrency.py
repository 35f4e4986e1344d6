"""Concurrent imports of one collection are serialized. Against a live server, of simultaneous uploads to the import
job endpoint one is accepted (202) and every other one answers 409 (one queued or running import per learner) —
never a 500 from the unique-constraint race. And a job whose import finds the collection held by another
transaction fails, changing nothing, and the next import goes through."""

import json
import threading

import pytest
import requests
from django.db import connection, transaction
from django.utils import timezone

from apps.flashcards.interchange import jobs
from apps.flashcards.models import Card, ImportJob, SrsSettings, UserCard

pytestmark = pytest.mark.django_db(transaction=True)
IMPORTS = "/api/v1/flashcards/imports/?format=json"
CARDS = 1500
SOURCE_BASE = 7_000_000_000


def export_of(cards: int) -> bytes:
    now = timezone.now().isoformat()
    snapshot = {"state": 0, "step": 0, "stability": None, "difficulty": None, "due": now, "last_review": None,
                "reps": 0, "lapses": 0, "suspended": False, "leech": False, "buried_until": None,
                "source_changed": False}
    body = {"format": "llmkit-flashcards", "version": 1, "exported_at": now, "cards": [
        {"source_type": "question", "source_id": SOURCE_BASE + i, "added_at": now, **snapshot, "reviews": []}
        for i in range(cards)]}
    return json.dumps(body).encode()


@pytest.fixture
def sent(monkeypatch) -> list[str]:
    """The job ids handed to the worker's queue, recorded instead of sent: the test runs each job itself."""
    recorded = []

    class Queue:
        def signature(self, name, args):
            assert name == jobs.IMPORT_TASK
            return type("Task", (), {"apply_async": lambda self, queue: recorded.append(args[0])})()

    monkeypatch.setattr(jobs, "current_app", Queue())
    return recorded


@pytest.fixture
def learner(make_user):
    from rest_framework.authtoken.models import Token

    Card.objects.bulk_create([Card(source_type="question", source_id=SOURCE_BASE + i, front=f"Q{i}", back="A",
                                   content_hash="x") for i in range(CARDS)])
    user = make_user("importer")
    return user, {"Authorization": f"Token {Token.objects.create(user=user).key}",
                  "Content-Type": "application/octet-stream"}


def test_concurrent_uploads_one_202_the_rest_409_never_500(live_server, learner, sent):
    user, headers = learner
    body = export_of(CARDS)
    answers, start = [], threading.Barrier(4)

    def post():
        start.wait()
        answers.append(requests.post(live_server.url + IMPORTS, data=body, headers=headers, timeout=120))

    threads = [threading.Thread(target=post) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(answer.status_code for answer in answers)
    print("concurrent upload statuses:", statuses)
    assert statuses == [202, 409, 409, 409], [answer.text for answer in answers]
    (accepted,) = [answer.json() for answer in answers if answer.status_code == 202]
    assert sent == [accepted["id"]] and ImportJob.objects.count() == 1  # a refused upload stores and sends nothing
    jobs.import_job_run(job_id=accepted["id"])
    job = ImportJob.objects.get(id=accepted["id"])
    assert job.status == "done" and job.result == {"cards": CARDS, "reviews": 0}, job.error
    assert UserCard.objects.filter(user=user).count() == CARDS  # the collection is the file, once


def test_a_job_that_finds_the_collection_held_fails_then_the_next_import_goes_through(live_server, learner, sent):
    user, headers = learner
    body = export_of(10)
    SrsSettings.objects.get_or_create(user=user)
    first = requests.post(live_server.url + IMPORTS, data=body, headers=headers, timeout=60)
    assert first.status_code == 202, first.text

    def run_in_a_worker():  # its own database connection, as a worker process has
        try:
            jobs.import_job_run(job_id=first.json()["id"])
        finally:
            connection.close()

    with transaction.atomic():  # this test plays a transaction holding the collection's lock
        list(SrsSettings.objects.select_for_update().filter(user=user))
        worker = threading.Thread(target=run_in_a_worker)
        worker.start()
        worker.join()
    failed = ImportJob.objects.get(id=first.json()["id"])
    assert failed.status == "failed" and "already running" in failed.error["detail"], failed.error
    assert not UserCard.objects.filter(user=user).exists()
    connection.close()
    second = requests.post(live_server.url + IMPORTS, data=body, headers=headers, timeout=60)
    assert second.status_code == 202, second.text  # the failed job freed the learner's slot
    jobs.import_job_run(job_id=second.json()["id"])
    done = ImportJob.objects.get(id=second.json()["id"])
    assert done.status == "done" and done.result == {"cards": 10, "reviews": 0}, done.error
