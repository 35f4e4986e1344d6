"""The due queue through the API: section order, counts that do not depend on the page size, bounded queries."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.flashcards.models import UserCard
from apps.flashcards.queue import QUEUE_FIELDS, _queue_cards
from apps.flashcards.services import card_review, deck_add
from tests.flashcards.conftest import T0, new_review_id

DUE = "/api/v1/flashcards/due/"


@pytest.fixture
def sections(content, card_of, learner_client, quiet_settings):
    """Nine days ago q1 was rated Good (learning, due 10 minutes later) and q2 Easy (review, due 8 days later,
    so yesterday). q3, the term and the number are new; the term's due is set past the end of today."""
    user = learner_client.user
    quiet_settings(user)
    deck_add(user=user, slug="all", now=T0)
    q1, q2, q3 = (card_of("question", q).id for q in content["questions"])
    term, number = card_of("term", content["term"]).id, card_of("number", content["number"]).id
    past = timezone.now() - timedelta(days=9)
    card_review(user=user, card_id=q1, rating=3, review_id=new_review_id(), now=past)
    card_review(user=user, card_id=q2, rating=4, review_id=new_review_id(), now=past)
    UserCard.objects.filter(user=user, card_id=term).update(due=timezone.now() + timedelta(days=2))
    order = [q1, q2, *sorted([q3, number]), term]  # learning, review, new by (due, id)
    return learner_client, order


def _due(client, query: str) -> dict:
    response = client.get(f"{DUE}?{query}")
    assert response.status_code == 200, response.content
    return response.json()


def test_sections_in_order_and_counts(sections):
    client, order = sections
    body = _due(client, "limit=50")
    assert [card["card_id"] for card in body["cards"]] == order
    assert [card["state"] for card in body["cards"]] == [1, 2, 0, 0, 0]
    # the new card due after today ends is served last but not counted, as before
    assert body["counts"] == {"learning": 1, "review": 1, "new": 2}
    assert body["cards"][2]["intervals"] == body["cards"][3]["intervals"] == {"1": 60, "2": 330, "3": 600,
                                                                              "4": 8 * 86400}


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5])
def test_counts_do_not_depend_on_the_page_size(sections, limit):
    client, order = sections
    body = _due(client, f"limit={limit}")
    assert [card["card_id"] for card in body["cards"]] == order[:limit]
    assert body["counts"] == {"learning": 1, "review": 1, "new": 2}


@pytest.mark.parametrize("limit, cards, new_count", [(1, 1, 1), (3, 3, 1), (50, 3, 1)])
def test_counts_capped_by_todays_new_limit(sections, quiet_settings, limit, cards, new_count):
    client, order = sections
    quiet_settings(client.user, new_cards_per_day=1)
    body = _due(client, f"limit={limit}")
    assert [card["card_id"] for card in body["cards"]] == order[:cards]
    assert body["counts"] == {"learning": 1, "review": 1, "new": new_count}


def test_spent_review_limit_hides_reviews_and_counts_zero(sections, quiet_settings):
    client, order = sections
    quiet_settings(client.user, max_reviews_per_day=0)
    body = _due(client, "limit=50")
    assert [card["card_id"] for card in body["cards"]] == [order[0], *order[2:]]
    assert body["counts"] == {"learning": 1, "review": 0, "new": 2}


@pytest.mark.parametrize("query", ["limit=1", "limit=50", "limit=50&deck=all"])
def test_due_queue_needs_bounded_queries(sections, django_assert_max_num_queries, query):
    client, order = sections
    _due(client, "limit=1")  # settings row exists from here on
    # settings; today's reviews with the deck's stored card count and whether presets are assigned (one statement);
    # the small collection's cards read whole (id, state, due), then the chosen ones with their card; the terms'
    # slugs and the cards' chapters for the source links; plus the deck when one is named
    with django_assert_max_num_queries(7):
        body = _due(client, query)
    assert len(body["cards"]) == (1 if query == "limit=1" else len(order))


def test_the_queues_plain_read_builds_the_cards_the_orm_builds(sections):
    """The queue reads its chosen cards with a plain statement (apps.core.plain_sql): every column it shows must come
    back as the ORM gives it (types included: booleans, nullable floats, aware datetimes, the owner's id)."""
    client, order = sections
    UserCard.objects.filter(user=client.user, card_id=order[0]).update(flag=3, note="mine", leech=True,
                                                                       source_changed=True)
    ids = list(UserCard.objects.filter(user=client.user).values_list("id", flat=True))
    orm = {user_card.pk: user_card for user_card in
           UserCard.objects.filter(pk__in=ids).select_related("card").only(*QUEUE_FIELDS)}
    plain = _queue_cards(ids)
    names = [name for name in QUEUE_FIELDS if not name.startswith("card__") and name != "id"]
    card_names = [name.removeprefix("card__").replace("owner", "owner_id") for name in QUEUE_FIELDS
                  if name.startswith("card__")]

    def values(user_card):
        return ([(getattr(user_card, name), type(getattr(user_card, name))) for name in names],
                [getattr(user_card.card, name) for name in card_names])

    assert sorted(plain) == sorted(ids)
    assert {pk: values(user_card) for pk, user_card in plain.items()} == {pk: values(orm[pk]) for pk in ids}
    first = next(user_card for user_card in plain.values() if user_card.card_id == order[0])
    assert (first.leech, first.flag, first.note, first.source_changed) == (True, 3, "mine", True)
