from datetime import timedelta

import pytest

from apps.flashcards.models import UserCard
from apps.flashcards.services import card_review, deck_add
from apps.flashcards.stats import stats
from tests.flashcards.conftest import T0, new_review_id

SETTINGS = "/api/v1/srs/settings/"


def test_settings_defaults_and_patch(learner_client):
    body = learner_client.get(SETTINGS).json()
    assert body["desired_retention"] == 0.9 and body["learning_steps"] == [1, 10] and body["leech_threshold"] == 8
    response = learner_client.patch(SETTINGS, {"desired_retention": 0.85, "time_zone": "Asia/Tokyo",
                                               "learning_steps": [], "fuzzing": False}, format="json")
    assert response.status_code == 200
    assert learner_client.get(SETTINGS).json()["time_zone"] == "Asia/Tokyo"
    assert learner_client.get(SETTINGS).json()["learning_steps"] == []


@pytest.mark.parametrize("payload, field", [
    ({"desired_retention": 0.69}, "desired_retention"), ({"desired_retention": 1.0}, "desired_retention"),
    ({"new_cards_per_day": -1}, "new_cards_per_day"), ({"new_cards_per_day": 10000}, "new_cards_per_day"),
    ({"max_reviews_per_day": 100000}, "max_reviews_per_day"),
    ({"learning_steps": [0]}, "learning_steps"), ({"learning_steps": [1440 * 7 + 1]}, "learning_steps"),
    ({"learning_steps": list(range(1, 12))}, "learning_steps"), ({"relearning_steps": "10"}, "relearning_steps"),
    ({"maximum_interval_days": 0}, "maximum_interval_days"), ({"maximum_interval_days": 36501}, "maximum_interval_days"),
    ({"day_rollover_hour": 24}, "day_rollover_hour"), ({"time_zone": "Mars/Olympus"}, "time_zone"),
    ({"time_zone": "../etc/passwd"}, "time_zone"), ({"fuzzing": "maybe"}, "fuzzing"),
    ({"leech_threshold": 0}, "leech_threshold"),
])
def test_settings_validation_names_the_field(learner_client, payload, field):
    response = learner_client.patch(SETTINGS, payload, format="json")
    assert response.status_code == 400
    assert any(name.startswith(field) for name in response.json()["fields"]), response.json()


def test_deck_list_counts_and_idempotent_add(content, learner_client):
    response = learner_client.post("/api/v1/flashcards/decks/part-foundations/add/")
    assert response.json() == {"added": 3}
    assert learner_client.post("/api/v1/flashcards/decks/part-foundations/add/").json() == {"added": 0}
    assert learner_client.post("/api/v1/flashcards/decks/all/add/").json() == {"added": 2}
    decks = {d["slug"]: d for d in learner_client.get("/api/v1/flashcards/decks/").json()}
    assert decks["part-foundations"] == {"slug": "part-foundations", "title": "Foundations", "kind": "part",
                                         "total": 3, "in_collection": 3, "new": 3, "learning": 0, "review_due": 0}
    assert decks["all"]["total"] == 5 and decks["topic-batching"]["in_collection"] == 1


def test_deck_counts_need_bounded_queries(content, learner_client, django_assert_max_num_queries):
    learner_client.post("/api/v1/flashcards/decks/all/add/")
    with django_assert_max_num_queries(9):  # hidden decks: unpublished parts, then unpublished chapters
        learner_client.get("/api/v1/flashcards/decks/")


def test_add_unknown_deck_is_404(content, learner_client):
    assert learner_client.post("/api/v1/flashcards/decks/nope/add/").status_code == 404


def test_stats_heatmap_streak_retention_forecast(content, make_user, quiet_settings, card_of):
    user = make_user()
    quiet_settings(user)
    deck_add(user=user, slug="all", now=T0)
    q1, q2 = (card_of("question", q).id for q in content["questions"][:2])
    # day 0: two new cards, Easy -> review, due in 8 days
    card_review(user=user, card_id=q1, rating=4, review_id=new_review_id(), now=T0)
    card_review(user=user, card_id=q2, rating=4, review_id=new_review_id(), now=T0)
    # day 8: one review passed, one failed (Again on a review card)
    day8 = T0 + timedelta(days=8)
    card_review(user=user, card_id=q1, rating=3, review_id=new_review_id(), now=day8)
    card_review(user=user, card_id=q2, rating=1, review_id=new_review_id(), now=day8 + timedelta(minutes=1))
    result = stats(user=user, now=day8 + timedelta(hours=1))
    per_day = {d["date"]: d["count"] for d in result["reviews_per_day"]}
    assert len(result["reviews_per_day"]) == 365
    assert per_day["2025-03-03"] == 2 and per_day["2025-03-11"] == 2 and sum(per_day.values()) == 4
    assert result["streak"] == 1
    assert result["true_retention"]["7d"] == {"reviews": 2, "passed": 1, "retention": 0.5}
    assert result["card_counts"]["review"] == 1 and result["card_counts"]["relearning"] == 1
    assert result["card_counts"]["new"] == 3
    # q2 relearns in 10 minutes (today); q1's Good after an 8-day Easy interval is due on day 47, past the horizon
    assert result["forecast"][0]["count"] == 1 and sum(d["count"] for d in result["forecast"]) == 1
    assert 0.9 < result["average_retrievability"] <= 1.0


def test_stats_endpoint_for_empty_collection(learner_client):
    body = learner_client.get("/api/v1/flashcards/stats/").json()
    assert body["streak"] == 0 and body["average_retrievability"] is None
    assert body["true_retention"]["30d"]["retention"] is None


def test_streak_counts_consecutive_days(content, make_user, quiet_settings, card_of):
    user = make_user()
    quiet_settings(user, learning_steps=[], relearning_steps=[])
    deck_add(user=user, slug="all", now=T0)
    card_id = card_of("question", content["questions"][0]).id
    for day in range(3):
        card_review(user=user, card_id=card_id, rating=2, review_id=new_review_id(), now=T0 + timedelta(days=day))
    assert stats(user=user, now=T0 + timedelta(days=3, hours=1))["streak"] == 3  # today still empty
    assert stats(user=user, now=T0 + timedelta(days=4, hours=1))["streak"] == 0
    assert UserCard.objects.get(user=user, card_id=card_id).reps == 3
