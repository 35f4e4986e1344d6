"""What a learner does to a card while reviewing it: flag, private note, bury and unbury, the links to its source,
and today's figures the review screen shows (reviews against the daily goal, Again count, time per card)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.core.models import Status
from apps.flashcards.models import ReviewLog, UserCard
from apps.flashcards.services import card_review, deck_add
from tests.flashcards.conftest import new_review_id

CARD = "/api/v1/flashcards/{}/{}/"
DUE = "/api/v1/flashcards/due/"


@pytest.fixture
def collection(content, card_of, learner_client, quiet_settings):
    quiet_settings(learner_client.user)
    deck_add(user=learner_client.user, slug="all", now=timezone.now() - timedelta(minutes=1))
    ids = {"q1": card_of("question", content["questions"][0]).id, "term": card_of("term", content["term"]).id,
           "number": card_of("number", content["number"]).id}
    return learner_client, ids


def _queue_card(client, card_id: int) -> dict:
    cards = client.get(DUE, {"limit": 50}).json()["cards"]
    return next(card for card in cards if card["card_id"] == card_id)


def test_flag_is_set_shown_in_the_queue_and_the_browser_and_cleared(collection):
    client, ids = collection
    response = client.post(CARD.format(ids["q1"], "flag"), {"flag": 4}, format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {"card_id": ids["q1"], "flag": 4, "flag_name": "Blue", "note": ""}
    assert _queue_card(client, ids["q1"])["flag"] == 4
    flagged = client.get("/api/v1/flashcards/cards/", {"flag": 4}).json()["results"]
    assert [row["card_id"] for row in flagged] == [ids["q1"]]
    assert client.post(CARD.format(ids["q1"], "flag"), {"flag": 0}, format="json").json()["flag"] == 0
    assert UserCard.objects.get(user=client.user, card_id=ids["q1"]).flag == 0


@pytest.mark.parametrize("payload", [{"flag": 8}, {"flag": -1}, {"flag": "red"}, {}])
def test_bad_flag_names_the_field(collection, payload):
    client, ids = collection
    response = client.post(CARD.format(ids["q1"], "flag"), payload, format="json")
    assert response.status_code == 400
    assert "flag" in response.json()["fields"]


def test_note_is_private_kept_and_removed(collection, stranger):
    client, ids = collection
    response = client.put(CARD.format(ids["term"], "note"), {"note": "  TTFT: <b>prefill</b> + queue  "}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["note"] == "TTFT: <b>prefill</b> + queue"  # plain text, stored as written (trimmed)
    assert _queue_card(client, ids["term"])["note"] == "TTFT: <b>prefill</b> + queue"
    assert client.get(f"/api/v1/flashcards/{ids['term']}/").json()["note"] == "TTFT: <b>prefill</b> + queue"
    deck_add(user=stranger.user, slug="all", now=timezone.now())
    assert _queue_card(stranger, ids["term"])["note"] == ""  # the same card in another collection: no note
    assert client.put(CARD.format(ids["term"], "note"), {"note": ""}, format="json").json()["note"] == ""


@pytest.mark.parametrize("payload", [{"note": "x" * 2001}, {"note": None}, {}])
def test_bad_note_names_the_field(collection, payload):
    client, ids = collection
    response = client.put(CARD.format(ids["q1"], "note"), payload, format="json")
    assert response.status_code == 400
    assert "note" in response.json()["fields"]


@pytest.mark.parametrize("action, method, payload", [
    ("flag", "post", {"flag": 1}), ("note", "put", {"note": "mine"}), ("bury", "post", None),
    ("unbury", "post", None), ("suspend", "post", None),
])
def test_another_learners_card_is_404_and_unchanged(collection, stranger, action, method, payload):
    client, ids = collection
    response = getattr(stranger, method)(CARD.format(ids["q1"], action), payload, format="json")
    assert response.status_code == 404
    mine = UserCard.objects.get(user=client.user, card_id=ids["q1"])
    assert (mine.flag, mine.note, mine.buried_until, mine.suspended) == (0, "", None, False)


def test_bury_hides_the_card_and_unbury_brings_it_back(collection):
    client, ids = collection
    assert client.post(CARD.format(ids["q1"], "bury")).status_code == 200
    assert ids["q1"] not in [card["card_id"] for card in client.get(DUE, {"limit": 50}).json()["cards"]]
    body = client.post(CARD.format(ids["q1"], "unbury")).json()
    assert body["buried_until"] is None
    assert ids["q1"] in [card["card_id"] for card in client.get(DUE, {"limit": 50}).json()["cards"]]


def test_queue_cards_link_to_their_question_term_and_chapters(collection, content):
    client, ids = collection
    c1, c2 = content["chapters"]
    q1, term = content["questions"][0], content["term"]
    assert _queue_card(client, ids["q1"])["links"] == [
        {"kind": "question", "title": "Question", "path": f"/practice/questions/{q1.pk}"},
        {"kind": "chapter", "title": c1.title, "path": "/learn/c1"},
    ]
    assert _queue_card(client, ids["term"])["links"] == [
        {"kind": "term", "title": "Glossary", "path": f"/glossary/{term.slug}"},
        {"kind": "chapter", "title": c1.title, "path": "/learn/c1"},
    ]
    assert _queue_card(client, ids["number"])["links"] == [
        {"kind": "chapter", "title": c2.title, "path": "/learn/c2"}]


def test_queue_cards_link_only_to_chapters_a_learner_can_open(collection, content):
    client, ids = collection
    c1, c2 = content["chapters"]
    c2.status = Status.DRAFT
    c2.save()
    assert _queue_card(client, ids["number"])["links"] == []
    c2.status = Status.PUBLISHED
    c2.save()
    c1.part.status = Status.DRAFT
    c1.part.save()
    assert [link["kind"] for link in _queue_card(client, ids["term"])["links"]] == ["term"]


def test_today_counts_reviews_again_and_time_against_the_daily_goal(collection):
    client, ids = collection
    assert client.patch("/api/v1/srs/settings/", {"daily_goal": 3}, format="json").json()["daily_goal"] == 3
    now = timezone.now()
    card_review(user=client.user, card_id=ids["q1"], rating=1, review_id=new_review_id(), now=now, duration_ms=4000)
    card_review(user=client.user, card_id=ids["term"], rating=3, review_id=new_review_id(), now=now,
                duration_ms=9000)
    card_review(user=client.user, card_id=ids["number"], rating=1, review_id=new_review_id(), now=now)  # untimed
    today = client.get(DUE).json()["today"]
    # 3 reviews, 2 of them Again; 2 timed reviews of 4 s and 9 s: 13 s in all, 6.5 s a card
    assert today == {"reviews": 3, "again": 2, "daily_goal": 3, "timed_reviews": 2, "time_ms": 13000}


def test_review_time_is_recorded_and_shown_in_the_cards_history(collection):
    client, ids = collection
    response = client.post(CARD.format(ids["q1"], "review"),
                           {"rating": 3, "review_id": new_review_id(), "duration_ms": 7250}, format="json")
    assert response.status_code == 201
    assert ReviewLog.objects.get(user=client.user).duration_ms == 7250
    assert client.get(f"/api/v1/flashcards/{ids['q1']}/").json()["history"][0]["duration_ms"] == 7250


@pytest.mark.parametrize("value", [-1, 10000, "many"])
def test_bad_daily_goal_names_the_field(collection, value):
    client, _ = collection
    response = client.patch("/api/v1/srs/settings/", {"daily_goal": value}, format="json")
    assert response.status_code == 400
    assert "daily_goal" in response.json()["fields"]
