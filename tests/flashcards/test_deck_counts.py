"""The stored per-deck counts (kept by the database as cards, memberships and card states change) stay equal to a
count from scratch after every kind of write, and the deck tree and deck list built on them still show, at any time
of day, what the due queue shows and what a direct query over the cards counts."""

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from apps.flashcards import decks, state
from apps.flashcards import queue as due_queues
from apps.flashcards.deck_counts import carried_decks, recount, stored_counts
from apps.flashcards.models import Card, CardState, Deck, DeckCardCount, UserCard, UserDeckCount
from apps.flashcards.own_cards import own_card_create, own_card_delete, own_card_update
from apps.flashcards.services import card_bury, card_review, card_suspend, card_undo, cards_bulk, deck_add
from tests.flashcards.conftest import exported_json, import_file, new_review_id, tree_nodes

IN_LEARNING = (CardState.LEARNING, CardState.RELEARNING)


def _direct_stored(user) -> dict:
    """What UserDeckCount should hold, counted from the cards with the ORM (no shared SQL with the triggers)."""
    new = Q(state=CardState.NEW, suspended=False)
    aggregates = {"cards": Count("id"), "live": Count("id", filter=Q(card__retired=False)),
                  "new_cards": Count("id", filter=new), "live_new_cards": Count("id", filter=new & Q(card__retired=False))}
    rows = {row.pop("card__decks"): row for row in UserCard.objects.filter(user=user, card__decks__isnull=False)
            .values("card__decks").annotate(**aggregates).order_by()}
    whole = UserCard.objects.filter(user=user).aggregate(**aggregates)
    if whole["cards"]:
        rows[None] = whole
    return {deck: row for deck, row in rows.items() if any(row.values())}


def _direct_decks(user) -> dict:
    """card id → its sorted deck ids, from the membership table with the ORM, for each card of the collection."""
    decks = {card_id: [] for card_id in UserCard.objects.filter(user=user).values_list("card_id", flat=True)}
    for card_id, deck_id in (Card.decks.through.objects.filter(card_id__in=list(decks))
                             .order_by("card_id", "deck_id").values_list("card_id", "deck_id")):
        decks[card_id].append(deck_id)
    return decks


def _direct_totals() -> dict:
    rows = (Card.decks.through.objects.filter(card__retired=False).values("deck_id", "card__owner_id")
            .annotate(cards=Count("id")).order_by())
    return {(row["deck_id"], row["card__owner_id"] or 0): row["cards"] for row in rows}


def _stored_totals() -> dict:
    return {(row.deck_id, row.owner_id): row.cards for row in DeckCardCount.objects.exclude(cards=0)}


def _direct_deck_list(user, now) -> dict:
    """The deck list's counts as a direct query: retired cards count nowhere."""
    end = state.day_clock(state.settings_get(user=user)).today_bounds(now)[1]
    active = Q(suspended=False) & (Q(buried_until__isnull=True) | Q(buried_until__lte=now))
    found = {}
    for deck in Deck.objects.all():
        mine = UserCard.objects.filter(user=user, card__decks=deck, card__retired=False)
        found[deck.slug] = {
            "total": deck.cards.filter(retired=False).filter(Q(owner__isnull=True) | Q(owner=user)).count(),
            "in_collection": mine.count(),
            "new": mine.filter(active, state=CardState.NEW).count(),
            "learning": mine.filter(active, state__in=IN_LEARNING, due__lte=now).count(),
            "review_due": mine.filter(active, state=CardState.REVIEW, due__lt=end).count(),
        }
    return found


def check(user, now=None) -> None:
    """Stored counts equal a recount; each tree node equals its due queue; the deck list equals a direct query."""
    now = now or timezone.now()
    assert stored_counts(user=user) == _direct_stored(user)
    if connection.vendor == "postgresql":  # each card's row carries its card's decks
        assert carried_decks(user=user) == _direct_decks(user)
    assert _stored_totals() == _direct_totals()
    nodes = tree_nodes(decks.deck_tree(user=user, now=now))
    assert nodes, "the tree has decks"
    for slug, node in nodes.items():
        queue = due_queues.due_queue(user=user, deck_slug=None if slug == "all" else slug, limit=500, now=now)
        assert node["counts"] == queue["counts"], (slug, now)
        assert node["in_collection"] == (UserCard.objects.filter(user=user).count() if slug == "all" else
                                         UserCard.objects.filter(user=user, card__decks__slug=slug).count()), slug
    direct = _direct_deck_list(user, now)
    for row in decks.deck_list(user=user, now=now):
        assert {key: row[key] for key in direct[row["slug"]]} == direct[row["slug"]], (row["slug"], now)


@pytest.fixture
def learner(content, learner_client, quiet_settings):
    user = learner_client.user
    quiet_settings(user)
    deck_add(user=user, slug="all", now=timezone.now() - timedelta(days=2))
    return user


def _card_ids(user) -> list[int]:
    return list(UserCard.objects.filter(user=user).order_by("card_id").values_list("card_id", flat=True))


def test_adding_decks_fills_the_counts(learner):
    assert stored_counts(user=learner)[None] == {"cards": 5, "live": 5, "new_cards": 5, "live_new_cards": 5}
    check(learner)


def test_review_and_undo(learner):
    card_id = _card_ids(learner)[0]
    review_id = uuid.UUID(new_review_id())
    card_review(user=learner, card_id=card_id, rating=3, review_id=review_id, now=timezone.now())
    assert stored_counts(user=learner)[None]["new_cards"] == 4
    check(learner)
    card_undo(user=learner, card_id=card_id, review_id=review_id)
    assert stored_counts(user=learner)[None]["new_cards"] == 5
    check(learner)


def test_suspend_unsuspend_and_bury(learner):
    first, second, *_ = _card_ids(learner)
    card_suspend(user=learner, card_id=first, suspended=True)
    check(learner)
    card_bury(user=learner, card_id=second, now=timezone.now())  # stored counts unchanged: the clock decides
    check(learner)
    card_suspend(user=learner, card_id=first, suspended=False)
    check(learner)


@pytest.mark.parametrize("action", ["suspend", "unsuspend", "bury", "unbury", "reset", "reschedule"])
def test_bulk_actions(learner, action):
    now = timezone.now()
    ids = _card_ids(learner)
    for card_id in ids[:3]:
        card_review(user=learner, card_id=card_id, rating=4, review_id=new_review_id(), now=now - timedelta(days=1))
    cards_bulk(user=learner, card_ids=ids[:2], action="suspend", now=now)
    cards_bulk(user=learner, card_ids=ids[1:4], action=action, now=now,
               due_date=(now + timedelta(days=1)).date() if action == "reschedule" else None)
    check(learner, now)


def test_own_cards_added_moved_and_deleted(learner, content):
    now = timezone.now()
    card = own_card_create(user=learner, kind="basic", front="Mine?", back="Yes.", deck_slug="chapter-c1", now=now)
    assert _stored_totals()[(Deck.objects.get(slug="chapter-c1").pk, learner.pk)] == 1
    check(learner)
    own_card_update(user=learner, card_id=card.pk, now=timezone.now(), deck="chapter-c2")  # moved to another part's chapter
    check(learner)
    own_card_delete(user=learner, card_id=card.pk)
    check(learner)


def test_json_import_after_clearing_the_collection(learner, learner_client):
    card_review(user=learner, card_id=_card_ids(learner)[0], rating=3, review_id=new_review_id(), now=timezone.now())
    exported = exported_json(learner_client)
    UserCard.objects.filter(user=learner).delete()
    assert stored_counts(user=learner) == {}
    check(learner)
    status, job = import_file(learner_client, exported, "json")
    assert status == 202 and job["status"] == "done", job
    assert stored_counts(user=learner)[None]["cards"] == 5
    check(learner)


def test_content_changes_retire_return_and_relink_cards(learner, content):
    from apps.courses.models import Chapter
    from apps.flashcards.content import sync_all_cards

    q1, _, q3 = content["questions"]
    q3.chapters.set([content["chapters"][1]])  # moved from c1 (Foundations) to c2 (Serving)
    extra = Chapter.objects.create(slug="c3", part=content["parts"][0], order=2, title="C3", summary="s", body="b")
    q1.chapters.add(extra)
    sync_all_cards()
    check(learner)
    q1.delete()  # its card is retired and leaves every deck
    sync_all_cards()
    assert Card.objects.filter(retired=True).count() == 1
    check(learner)
    # a retired card the learner still studies (as an import may leave one): the deck list leaves it out, the tree
    # and the due queue count it
    UserCard.objects.filter(user=learner, card__retired=True).update(suspended=False)
    check(learner)


def test_time_passing_and_the_day_rolling_over(learner):
    now = timezone.now()
    first, second, third, *_ = _card_ids(learner)
    card_review(user=learner, card_id=first, rating=3, review_id=new_review_id(), now=now)  # learning, due in minutes
    card_review(user=learner, card_id=second, rating=4, review_id=new_review_id(), now=now)  # review, due in days
    card_bury(user=learner, card_id=third, now=now)  # a new card buried until tomorrow
    cards_bulk(user=learner, card_ids=[_card_ids(learner)[3]], action="reschedule", now=now,
               due_date=(now + timedelta(days=2)).date())  # a new card due the day after tomorrow
    for later in (now, now + timedelta(minutes=30), now + timedelta(days=1), now + timedelta(days=3),
                  now + timedelta(days=30)):
        check(learner, later)


def test_other_learners_and_deletions(learner, make_user):
    other = make_user()
    deck_add(user=other, slug="part-foundations", now=timezone.now())
    check(learner)
    check(other)
    assert stored_counts(user=other)[None]["cards"] == 3
    other.delete()
    assert not UserDeckCount.objects.filter(user_id=other.pk).exists()
    Deck.objects.filter(slug="chapter-c1").delete()
    check(learner)


def test_recount_rebuilds_what_was_lost(learner):
    expected = stored_counts(user=learner)
    UserDeckCount.objects.filter(user=learner).delete()
    DeckCardCount.objects.all().delete()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("UPDATE flashcards_usercard SET deck_ids = '{}'")
    recount()
    assert stored_counts(user=learner) == expected
    check(learner)
