"""Cram before the interview: the weakest cards of a deck, ranked by recall probability now, and nothing written.

Hand derivation (FSRS-6 defaults, decay w20 = 0.1542): R(t) = (1 + F·t/S)^(-0.1542) with F = 0.9^(-1/0.1542) - 1
= e^(0.105361·6.48508) - 1 = e^0.683269 - 1 = 0.980371, t in whole days since the last review (py-fsrs counts
whole days). Ten days after the last review:
  S = 2:   (1 + 0.980371·5)^(-0.1542)   = 5.901855^(-0.1542) = e^(-0.1542·1.775266) = e^(-0.273746) = 0.7605
  S = 10:  (1 + 0.980371)^(-0.1542)     = e^(-0.1542·0.683269) = e^(-0.105360) = 0.9000  (R = 0.9 at t = S)
  S = 100: (1 + 0.0980371)^(-0.1542)    = e^(-0.1542·0.093529) = e^(-0.014422) = 0.9857
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from apps.flashcards.models import CardState, ReviewLog, UserCard
from apps.flashcards.services import deck_add

CRAM = "/api/v1/flashcards/cram/"


@pytest.fixture
def collection(content, card_of, learner_client, quiet_settings):
    user = learner_client.user
    quiet_settings(user)
    deck_add(user=user, slug="all", now=timezone.now())
    q1, q2, q3 = (card_of("question", q).id for q in content["questions"])
    ids = {"q1": q1, "q2": q2, "q3": q3, "term": card_of("term", content["term"]).id,
           "number": card_of("number", content["number"]).id}
    ten_days_ago = timezone.now() - timedelta(days=10, hours=1)
    for key, stability, lapses in (("q1", 10, 0), ("q2", 2, 1), ("q3", 100, 0), ("term", 2, 3)):
        UserCard.objects.filter(user=user, card_id=ids[key]).update(
            state=CardState.REVIEW, step=None, stability=stability, difficulty=5.0, lapses=lapses, reps=lapses + 2,
            last_review=ten_days_ago, due=ten_days_ago + timedelta(days=stability))
    return learner_client, ids


def _cram(client, **query) -> dict:
    response = client.get(CRAM, query)
    assert response.status_code == 200, response.content
    return response.json()


def test_weakest_first_by_recall_then_lapses(collection):
    client, ids = collection
    body = _cram(client)
    assert [card["card_id"] for card in body["cards"]] == [ids["term"], ids["q2"], ids["q1"], ids["q3"]]
    assert [card["retrievability"] for card in body["cards"]] == pytest.approx([0.7605, 0.7605, 0.9, 0.9857], abs=1e-4)
    assert (body["reviewed_cards"], body["new_cards"]) == (4, 0)
    assert [card["card_id"] for card in _cram(client, limit=2)["cards"]] == [ids["term"], ids["q2"]]


def test_new_cards_follow_when_asked_and_suspended_cards_stay_out(collection):
    client, ids = collection
    UserCard.objects.filter(user=client.user, card_id=ids["q3"]).update(suspended=True)
    body = _cram(client, include_new="true")
    assert [card["card_id"] for card in body["cards"]] == [ids["term"], ids["q2"], ids["q1"], ids["number"]]
    assert body["cards"][-1]["retrievability"] is None and body["new_cards"] == 1


def test_a_chapter_or_topic_deck_crams_only_its_cards(collection):
    client, ids = collection
    assert [card["card_id"] for card in _cram(client, deck="chapter-c2", include_new="true")["cards"]] == [
        ids["q2"], ids["number"]]
    assert [card["card_id"] for card in _cram(client, deck="topic-batching")["cards"]] == [ids["q1"]]


def test_cramming_writes_nothing(collection):
    client, _ = collection
    before = list(UserCard.objects.filter(user=client.user).order_by("id").values())
    with CaptureQueriesContext(connection) as queries:
        _cram(client, include_new="true", limit=200)
        _cram(client, deck="part-foundations")
    writes = [query["sql"] for query in queries.captured_queries
              if query["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes == []
    assert list(UserCard.objects.filter(user=client.user).order_by("id").values()) == before
    assert not ReviewLog.objects.exists()


def test_another_learner_crams_only_their_own_collection(collection, make_user):
    stranger = APIClient()
    stranger.force_authenticate(make_user())
    assert _cram(stranger)["cards"] == []


@pytest.mark.parametrize("query, field", [
    ({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"deck": "not a slug!"}, "deck"),
    ({"include_new": "maybe"}, "include_new"),
])
def test_bad_cram_query_names_the_field(collection, query, field):
    client, _ = collection
    response = client.get(CRAM, query)
    assert response.status_code == 400
    assert field in response.json()["fields"]


def test_unknown_deck_is_404(collection):
    client, _ = collection
    assert client.get(CRAM, {"deck": "no-such-deck"}).status_code == 404


def test_cram_cards_name_their_source_so_a_question_card_can_show_its_options(collection, content):
    client, ids = collection
    by_id = {card["card_id"]: card for card in _cram(client, include_new="true", limit=200)["cards"]}
    for key, question in zip(("q1", "q2", "q3"), content["questions"], strict=True):
        assert (by_id[ids[key]]["source_type"], by_id[ids[key]]["source_id"]) == ("question", question.pk)
    assert (by_id[ids["term"]]["source_type"], by_id[ids["term"]]["source_id"]) == ("term", content["term"].pk)
