"""Concurrent imports of one collection are serialized: against a live server, the import that holds the collection
answers 200 and every other one 409 while it runs — never a 500 from a unique-constraint violation."""

import json
import threading

import pytest
import requests
from django.db import connection, transaction
from django.utils import timezone

from apps.flashcards.models import Card, SrsSettings, UserCard

pytestmark = pytest.mark.django_db(transaction=True)
IMPORT = "/api/v1/flashcards/import/"
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
def learner(make_user):
    from rest_framework.authtoken.models import Token

    Card.objects.bulk_create([Card(source_type="question", source_id=SOURCE_BASE + i, front=f"Q{i}", back="A",
                                   content_hash="x") for i in range(CARDS)])
    user = make_user("importer")
    return user, {"Authorization": f"Token {Token.objects.create(user=user).key}",
                  "Content-Type": "application/json"}


def test_concurrent_imports_one_200_the_rest_409_never_500(live_server, learner):
    user, headers = learner
    body = export_of(CARDS)
    statuses, start = [], threading.Barrier(4)

    def post():
        start.wait()
        statuses.append(requests.post(live_server.url + IMPORT, data=body, headers=headers, timeout=120).status_code)

    threads = [threading.Thread(target=post) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print("concurrent import statuses:", sorted(statuses))
    assert set(statuses) <= {200, 409}, statuses
    assert statuses.count(200) >= 1, statuses
    assert UserCard.objects.filter(user=user).count() == CARDS  # whichever won, the collection is the file, once


def test_an_import_while_another_holds_the_collection_is_409_then_200_after(live_server, learner):
    user, headers = learner
    body = export_of(10)
    SrsSettings.objects.get_or_create(user=user)
    with transaction.atomic():  # this test plays the running import: it holds the collection's lock
        list(SrsSettings.objects.select_for_update().filter(user=user))
        answer = requests.post(live_server.url + IMPORT, data=body, headers=headers, timeout=60)
        assert answer.status_code == 409, answer.text
        assert answer.json()["error"] == "conflict"
    connection.close()
    answer = requests.post(live_server.url + IMPORT, data=body, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"cards": 10, "reviews": 0}
