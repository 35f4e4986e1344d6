"""A deck's (or a small collection's) due queue read from its cards whole answers exactly what the section scans
over the whole collection answer: the same cards in the same order, the same counts and the same next learning time."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from apps.flashcards import queue as due_queues
from apps.flashcards.models import CardState, UserCard
from apps.flashcards.own_cards import own_card_create
from apps.flashcards.services import card_review, deck_add
from tests.flashcards.conftest import new_review_id

DECKS = ["part-foundations", "part-serving", "chapter-c1", "chapter-c2", "topic-batching", "all", None]


@pytest.fixture
def mixed(content, card_of, learner_client, quiet_settings):
    """The content's five cards plus fourteen own cards in every state a queue tells apart, across both chapters."""
    user = learner_client.user
    quiet_settings(user)
    # Midday (UTC days start at midnight): "later today" stays today whenever the suite runs.
    now = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)
    deck_add(user=user, slug="all", now=now - timedelta(days=3))
    card_review(user=user, card_id=card_of("question", content["questions"][0]).id, rating=3,
                review_id=new_review_id(), now=now - timedelta(days=9))
    kinds = [  # state, due from now, buried until from now (None: not buried), suspended
        (CardState.LEARNING, timedelta(minutes=-5), None, False),
        (CardState.LEARNING, timedelta(minutes=-5), None, False),  # the same due time: ordered by id
        (CardState.LEARNING, timedelta(minutes=10), None, False),  # within the learn-ahead
        (CardState.RELEARNING, timedelta(hours=3), None, False),  # later today
        (CardState.REVIEW, timedelta(days=-1), None, False),
        (CardState.REVIEW, timedelta(days=-2), None, False),
        (CardState.REVIEW, timedelta(days=2), None, False),  # not due today
        (CardState.REVIEW, timedelta(days=-1), timedelta(hours=5), False),  # buried
        (CardState.REVIEW, timedelta(days=-1), timedelta(hours=-5), False),  # was buried
        (CardState.REVIEW, timedelta(days=-1), None, True),  # suspended
        (CardState.NEW, timedelta(hours=-1), None, False),
        (CardState.NEW, timedelta(days=2), None, False),  # served last but not counted today
        (CardState.NEW, timedelta(hours=-1), timedelta(hours=5), False),  # buried
        (CardState.NEW, timedelta(hours=-2), None, False),
    ]
    for index, (state, due, buried, suspended) in enumerate(kinds):
        card = own_card_create(user=user, kind="basic", front=f"Own {index}?", back="A.",
                               deck_slug="chapter-c1" if index % 2 else "chapter-c2", now=now)
        UserCard.objects.filter(user=user, card=card).update(
            state=state, due=now + due, suspended=suspended, buried_until=None if buried is None else now + buried,
            stability=None if state == CardState.NEW else 3.0, difficulty=None if state == CardState.NEW else 5.0,
            last_review=None if state == CardState.NEW else now - timedelta(days=3), step=0)
    return user, now


def _both(user, deck, limit, now, monkeypatch) -> tuple[dict, dict]:
    taken = []
    small = due_queues._small_deck_queue

    def spy(**kwargs):
        taken.append(kwargs["deck"].slug if kwargs["deck"] else None)
        return small(**kwargs)

    monkeypatch.setattr(due_queues, "_small_deck_queue", spy)
    read_whole = due_queues.due_queue(user=user, deck_slug=deck, limit=limit, now=now)
    assert taken == [None if deck == "all" else deck]  # "All cards" reads the whole collection
    monkeypatch.setattr(due_queues, "SMALL_DECK", -1)  # every deck scanned section by section
    scanned = due_queues.due_queue(user=user, deck_slug=deck, limit=limit, now=now)
    monkeypatch.undo()
    assert len(taken) == 1
    return read_whole, scanned


@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("limit", [1, 3, 50])
@pytest.mark.parametrize("later", [timedelta(0), timedelta(minutes=15), timedelta(hours=4), timedelta(days=1)])
def test_reading_a_deck_whole_answers_what_the_scans_answer(mixed, monkeypatch, deck, limit, later):
    user, now = mixed
    read_whole, scanned = _both(user, deck, limit, now + later, monkeypatch)
    assert read_whole == scanned


@pytest.mark.parametrize("limits", [{"new_cards_per_day": 1}, {"new_cards_per_day": 0, "max_reviews_per_day": 1},
                                    {"new_cards_per_day": 0, "max_reviews_per_day": 0}])
def test_reading_a_deck_whole_keeps_todays_limits(mixed, monkeypatch, quiet_settings, limits):
    user, now = mixed
    quiet_settings(user, **limits)
    for deck in DECKS:
        read_whole, scanned = _both(user, deck, 50, now, monkeypatch)
        assert read_whole == scanned, deck


def test_the_deck_queue_is_not_empty(mixed):
    """The comparison above compares something: the decks hold cards of every section."""
    user, now = mixed
    body = due_queues.due_queue(user=user, deck_slug="chapter-c1", limit=50, now=now)
    assert body["counts"]["learning"] and body["counts"]["review"] and body["counts"]["new"]
    assert body["next_learning_due"] is not None


def test_the_section_scans_are_planned_for_their_values(mixed, monkeypatch):
    """Prepared, a statement soon runs a generic plan made without its values, and such a plan cannot use the partial
    index of learning cards (its condition names the states a parameter carries): the section scans stay unprepared
    while the request's other hot statements are prepared."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL prepared statements")
    user, now = mixed
    monkeypatch.setattr(due_queues, "SMALL_DECK", -1)
    for _ in range(8):  # past DB_PREPARE_THRESHOLD (5)
        queue = due_queues.due_queue(user=user, deck_slug=None, limit=3, now=now)
    assert [card["state"] for card in queue["cards"]] == [CardState.LEARNING] * 3  # the learning section's scan
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("flashcards_srssettings" in text for text in prepared)
    assert not [text for text in prepared if '"flashcards_usercard"."state"' in text]
