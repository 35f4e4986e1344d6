"""A retried undo removes one review, not two: undo is keyed by the review it undoes (review_id).

Against a real gunicorn the test itself starts: the same undo request sent twice in a row, and twice at once (a
client that timed out and resent while the first was still in flight), removes exactly one review and answers the
second with the first answer. The older form (no body) keeps working for existing clients.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
import uuid

import pytest

from tests.support.servers import Gunicorn

pytestmark = [pytest.mark.slow]


def call(base: str, token: str, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{base}{path}", data=data, method=method, headers={
        "Authorization": f"Token {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


@pytest.fixture
def server(transactional_db):
    gunicorn = Gunicorn()
    yield gunicorn
    gunicorn.stop()


@pytest.fixture
def learner(transactional_db, make_user, content):
    from rest_framework.authtoken.models import Token

    user = make_user("undo-learner")
    return user, Token.objects.create(user=user).key


def review_count(user) -> int:
    from apps.flashcards.models import ReviewLog

    return ReviewLog.objects.filter(user=user).count()


def review_twice(base, token, deck) -> tuple[int, list[str]]:
    assert call(base, token, "POST", f"/api/v1/flashcards/decks/{deck}/add/")[0] == 200
    status, due = call(base, token, "GET", "/api/v1/flashcards/due/")
    assert status == 200, due
    card_id = due["cards"][0]["card_id"]
    ids = []
    for rating in (1, 3):
        review_id = str(uuid.uuid4())
        status, body = call(base, token, "POST", f"/api/v1/flashcards/{card_id}/review/",
                            {"rating": rating, "review_id": review_id})
        assert status == 201, body
        ids.append(review_id)
    return card_id, ids


def test_a_replayed_undo_removes_one_review(server, learner, content):
    user, token = learner
    card_id, (first, second) = review_twice(server.url, token, content.deck)
    assert review_count(user) == 2

    undo = f"/api/v1/flashcards/{card_id}/undo/"
    status, answer = call(server.url, token, "POST", undo, {"review_id": second})
    assert status == 200 and answer["undone_review_id"] == second
    status, replay = call(server.url, token, "POST", undo, {"review_id": second})
    assert status == 200 and replay == answer  # the same answer, nothing more undone
    assert review_count(user) == 1

    # Two identical undos in flight at once: one undoes, the other gets its answer.
    results = []
    threads = [threading.Thread(target=lambda: results.append(call(server.url, token, "POST", undo,
                                                                   {"review_id": first}))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [status for status, _ in results] == [200, 200], results
    assert results[0][1] == results[1][1] and results[0][1]["undone_review_id"] == first
    assert review_count(user) == 0
    assert server.process.poll() is None


def test_undo_names_only_the_last_review(server, learner, content):
    user, token = learner
    card_id, (first, _second) = review_twice(server.url, token, content.deck)
    undo = f"/api/v1/flashcards/{card_id}/undo/"
    status, body = call(server.url, token, "POST", undo, {"review_id": first})
    assert status == 409 and "last review" in body["detail"]
    status, body = call(server.url, token, "POST", undo, {"review_id": str(uuid.uuid4())})
    assert status == 409
    status, body = call(server.url, token, "POST", undo, {"review_id": "not-a-uuid"})
    assert status == 400 and "review_id" in body["fields"]
    assert review_count(user) == 2


def test_the_older_undo_without_a_body_still_undoes_the_last_review(server, learner, content):
    user, token = learner
    card_id, (_first, second) = review_twice(server.url, token, content.deck)
    status, body = call(server.url, token, "POST", f"/api/v1/flashcards/{card_id}/undo/")
    assert status == 200 and body["undone_review_id"] == second
    assert review_count(user) == 1
    # A keyed retry of that same undo is recognised too.
    status, replay = call(server.url, token, "POST", f"/api/v1/flashcards/{card_id}/undo/", {"review_id": second})
    assert status == 200 and replay == body
    assert review_count(user) == 1
