from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler

from apps.flashcards.models import ReviewLog, UserCard
from apps.flashcards.services import card_review, card_undo, deck_add
from tests.flashcards.conftest import T0, new_review_id

URL = "/api/v1/flashcards/{}/{}/"


@pytest.fixture
def collection(content, learner_client, quiet_settings):
    quiet_settings(learner_client.user)
    deck_add(user=learner_client.user, slug="all", now=T0)
    return learner_client


def _card_id(content, card_of, index=0):
    return card_of("question", content["questions"][index]).id


def test_stored_state_matches_fsrs_after_a_sequence(collection, content, card_of):
    """Same ratings and timestamps through the service and through fsrs directly give identical state."""
    user, card_id = collection.user, _card_id(content, card_of)
    scheduler = Scheduler(enable_fuzzing=False)
    expected = FsrsCard(card_id=card_id, due=T0)
    now = T0
    for rating in (3, 3, 3, 1, 3, 2, 4):
        expected, _ = scheduler.review_card(expected, Rating(rating), review_datetime=now)
        card_review(user=user, card_id=card_id, rating=rating, review_id=new_review_id(), now=now)
        now = expected.due + timedelta(hours=5)
    stored = UserCard.objects.get(user=user, card_id=card_id)
    assert (stored.state, stored.step) == (int(expected.state), expected.step)
    assert stored.stability == expected.stability and stored.difficulty == expected.difficulty
    assert stored.due == expected.due and stored.last_review == expected.last_review
    assert (stored.reps, stored.lapses) == (7, 1)
    assert ReviewLog.objects.filter(user=user).count() == 7


def test_first_good_review_through_api(collection, content, card_of):
    card_id = _card_id(content, card_of)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timezone, "now", lambda: T0)
        response = collection.post(URL.format(card_id, "review"), {"rating": 3, "review_id": new_review_id(),
                                                                   "duration_ms": 4000}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["state"], body["step"], round(body["stability"], 4)) == (1, 1, 2.3065)
    assert body["due"] == "2025-03-03T09:10:00Z"


def test_replay_returns_stored_answer_and_changes_nothing(collection, content, card_of):
    card_id, review_id = _card_id(content, card_of), new_review_id()
    first = collection.post(URL.format(card_id, "review"), {"rating": 3, "review_id": review_id}, format="json")
    second = collection.post(URL.format(card_id, "review"), {"rating": 1, "review_id": review_id}, format="json")
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json() == second.json()
    assert ReviewLog.objects.count() == 1
    assert UserCard.objects.get(card_id=card_id, user=collection.user).reps == 1


def test_review_id_reused_on_another_card_is_a_conflict(collection, content, card_of):
    review_id = new_review_id()
    collection.post(URL.format(_card_id(content, card_of, 0), "review"), {"rating": 3, "review_id": review_id}, format="json")
    response = collection.post(URL.format(_card_id(content, card_of, 1), "review"),
                               {"rating": 3, "review_id": review_id}, format="json")
    assert response.status_code == 409


@pytest.mark.parametrize("payload, field", [
    ({"rating": 0}, "rating"), ({"rating": 5}, "rating"), ({"rating": "good"}, "rating"),
    ({"rating": 3, "review_id": "nope"}, "review_id"), ({"rating": 3, "duration_ms": -1}, "duration_ms"),
])
def test_bad_review_input_names_the_field(collection, content, card_of, payload, field):
    payload.setdefault("review_id", new_review_id())
    response = collection.post(URL.format(_card_id(content, card_of), "review"), payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["fields"]


def test_unknown_foreign_and_uncollected_cards_are_404(collection, content, card_of, make_user, api_client):
    other = make_user("other")
    card_id = _card_id(content, card_of)
    assert collection.post(URL.format(999_999, "review"), {"rating": 3, "review_id": new_review_id()},
                           format="json").status_code == 404
    api_client.force_authenticate(other)  # the card exists but is not in other's collection
    for action in ("review", "undo", "suspend", "unsuspend", "bury"):
        body = {"rating": 3, "review_id": new_review_id()} if action == "review" else {}
        assert api_client.post(URL.format(card_id, action), body, format="json").status_code == 404, action


def test_anonymous_is_refused(db):
    from rest_framework.test import APIClient

    response = APIClient().get("/api/v1/flashcards/due/")
    assert response.status_code in (401, 403)


def test_undo_restores_exact_state_and_removes_log(collection, content, card_of):
    user, card_id = collection.user, _card_id(content, card_of)
    card_review(user=user, card_id=card_id, rating=3, review_id=new_review_id(), now=T0)
    before = UserCard.objects.get(user=user, card_id=card_id)
    card_review(user=user, card_id=card_id, rating=1, review_id=new_review_id(), now=T0 + timedelta(minutes=11))
    response = collection.post(URL.format(card_id, "undo"))
    assert response.status_code == 200
    after = UserCard.objects.get(user=user, card_id=card_id)
    for field in ("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses", "suspended"):
        assert getattr(after, field) == getattr(before, field), field
    assert ReviewLog.objects.filter(user=user).count() == 1
    assert collection.post(URL.format(card_id, "undo")).status_code == 200
    assert UserCard.objects.get(user=user, card_id=card_id).state == 0
    assert collection.post(URL.format(card_id, "undo")).status_code == 409


def test_leech_suspended_after_threshold_lapses(collection, content, card_of, quiet_settings):
    user, card_id = collection.user, _card_id(content, card_of)
    quiet_settings(user, leech_threshold=2, learning_steps=[], relearning_steps=[])
    now = T0
    for rating in (3, 1, 3, 1):
        answer, _ = card_review(user=user, card_id=card_id, rating=rating, review_id=new_review_id(), now=now)
        now = datetime.fromisoformat(answer["due"]) + timedelta(hours=1)
    stored = UserCard.objects.get(user=user, card_id=card_id)
    assert (stored.lapses, stored.suspended, stored.leech) == (2, True, True)
    assert answer["leech"] is True


def test_suspend_unsuspend_and_bury_hide_cards_from_the_queue(collection, content, card_of):
    card_id = _card_id(content, card_of)
    due_ids = lambda: [c["card_id"] for c in collection.get("/api/v1/flashcards/due/?limit=50").json()["cards"]]  # noqa: E731
    assert card_id in due_ids()
    assert collection.post(URL.format(card_id, "suspend")).json()["suspended"] is True
    assert card_id not in due_ids()
    collection.post(URL.format(card_id, "unsuspend"))
    assert card_id in due_ids()
    buried = collection.post(URL.format(card_id, "bury")).json()
    assert buried["buried_until"] is not None and card_id not in due_ids()


def test_due_queue_order_and_daily_new_limit(collection, content, card_of, quiet_settings):
    user = collection.user
    quiet_settings(user, new_cards_per_day=2)
    now = T0
    ids = [card_of("question", q).id for q in content["questions"]]
    card_review(user=user, card_id=ids[0], rating=3, review_id=new_review_id(), now=now)   # learning, due +10 min
    card_review(user=user, card_id=ids[1], rating=4, review_id=new_review_id(), now=now)   # review, due +8 days
    later = now + timedelta(days=9)
    queue = _queue(user, later)
    # learning first, then the review card, then no new cards: two new cards were introduced that day, but
    # "today" is a new day now, so two new cards are allowed again.
    states = [c["state"] for c in queue["cards"]]
    assert queue["cards"][0]["card_id"] == ids[0] and queue["cards"][1]["card_id"] == ids[1]
    assert states == [1, 2, 0, 0]
    assert queue["counts"] == {"learning": 1, "review": 1, "new": 2}
    same_day = _queue(user, now + timedelta(minutes=1))
    assert [c["state"] for c in same_day["cards"]] == []  or all(c["state"] != 0 for c in same_day["cards"])
    assert same_day["counts"]["new"] == 0


def _queue(user, now, **kwargs):
    from apps.flashcards.queue import due_queue

    return due_queue(user=user, deck_slug=kwargs.get("deck"), limit=kwargs.get("limit", 20), now=now)


def test_daily_review_limit(collection, content, card_of, quiet_settings):
    user = collection.user
    quiet_settings(user, max_reviews_per_day=1, new_cards_per_day=0)
    ids = [card_of("question", q).id for q in content["questions"]]
    for card_id in ids:
        card_review(user=user, card_id=card_id, rating=4, review_id=new_review_id(), now=T0)
    day = T0 + timedelta(days=30)
    assert [c["state"] for c in _queue(user, day)["cards"]] == [2]
    card_review(user=user, card_id=ids[0], rating=3, review_id=new_review_id(), now=day)
    assert _queue(user, day + timedelta(minutes=1))["cards"] == []


def test_day_rolls_over_at_the_users_hour_in_their_time_zone(collection, content, card_of, quiet_settings):
    """Berlin (UTC+1 in March) with rollover at 04:00 local: the day changes at 03:00 UTC."""
    user = collection.user
    quiet_settings(user, new_cards_per_day=1)
    from apps.flashcards.services import settings_update

    settings_update(user=user, time_zone="Europe/Berlin", day_rollover_hour=4)
    ids = [card_of("question", q).id for q in content["questions"]]
    evening = datetime(2025, 3, 3, 22, 0, tzinfo=UTC)  # 23:00 local
    card_review(user=user, card_id=ids[0], rating=4, review_id=new_review_id(), now=evening)
    assert _queue(user, datetime(2025, 3, 4, 2, 59, tzinfo=UTC))["counts"]["new"] == 0  # 03:59 local, same day
    fresh = _queue(user, datetime(2025, 3, 4, 3, 0, tzinfo=UTC))  # 04:00 local: a new day
    assert fresh["counts"]["new"] == 1
    assert fresh["day_ends_at"] == "2025-03-05T03:00:00Z"


def test_due_shows_next_interval_per_rating(collection):
    body = collection.get("/api/v1/flashcards/due/?limit=1").json()
    assert body["cards"][0]["intervals"] == {"1": 60, "2": 330, "3": 600, "4": 8 * 86400}


@pytest.mark.parametrize("query, field", [("limit=0", "limit"), ("limit=500", "limit"), ("limit=x", "limit"),
                                          ("deck=bad%20slug", "deck")])
def test_due_bad_query(collection, query, field):
    response = collection.get(f"/api/v1/flashcards/due/?{query}")
    assert response.status_code == 400 and field in response.json()["fields"]


def test_due_unknown_deck_is_404(collection):
    assert collection.get("/api/v1/flashcards/due/?deck=nope").status_code == 404


def test_undo_after_leech_unsuspends(collection, content, card_of, quiet_settings):
    user, card_id = collection.user, _card_id(content, card_of)
    quiet_settings(user, leech_threshold=1, learning_steps=[], relearning_steps=[])
    card_review(user=user, card_id=card_id, rating=3, review_id=new_review_id(), now=T0)
    card_review(user=user, card_id=card_id, rating=1, review_id=new_review_id(), now=T0 + timedelta(days=5))
    assert UserCard.objects.get(user=user, card_id=card_id).suspended
    card_undo(user=user, card_id=card_id)
    stored = UserCard.objects.get(user=user, card_id=card_id)
    assert (stored.suspended, stored.leech, stored.lapses) == (False, False, 0)
