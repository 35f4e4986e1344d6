"""Two simultaneous reviews of one card on PostgreSQL: serialized by the row lock, never lost or doubled."""

import threading
import uuid

import pytest
from django.db import connection, connections

from apps.flashcards.models import ReviewLog, UserCard
from apps.flashcards.services import card_review, deck_add, settings_update
from tests.flashcards.conftest import T0

pytestmark = pytest.mark.django_db(transaction=True)


def _race(user, card_id, review_ids, ratings):
    barrier = threading.Barrier(len(review_ids))
    results, errors = [], []

    def work(review_id, rating):
        try:
            barrier.wait()
            results.append(card_review(user=user, card_id=card_id, rating=rating, review_id=review_id, now=T0))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=pair) for pair in zip(review_ids, ratings, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors, errors
    return results


@pytest.fixture
def one_card(content, make_user):
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    user = make_user()
    settings_update(user=user, fuzzing=False)
    deck_add(user=user, slug="topic-batching", now=T0)
    return user, UserCard.objects.get(user=user).card_id


def test_same_review_id_applies_once(one_card):
    user, card_id = one_card
    review_id = uuid.uuid4()
    results = _race(user, card_id, [review_id, review_id], [3, 3])
    assert sorted(replayed for _, replayed in results) == [False, True]
    assert results[0][0] == results[1][0]
    assert ReviewLog.objects.filter(user=user).count() == 1
    assert UserCard.objects.get(user=user).reps == 1


def test_different_review_ids_both_apply_in_turn(one_card):
    user, card_id = one_card
    _race(user, card_id, [uuid.uuid4(), uuid.uuid4()], [3, 3])
    logs = list(ReviewLog.objects.filter(user=user).order_by("id"))
    assert len(logs) == 2
    # the second review saw the first one's result: it started from Learning step 1, not from New
    assert [log.state_before for log in logs] == [0, 1]
    stored = UserCard.objects.get(user=user)
    assert stored.reps == 2 and stored.state == 2  # Good, Good graduates with default steps


def test_simultaneous_reviews_of_different_cards_keep_the_deck_counts(content, make_user):
    """Reviews of different cards sharing decks all update the same stored deck counts: they wait for each other
    (rows locked in one order, no deadlock) and none is lost."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    from apps.flashcards.deck_counts import stored_counts
    from tests.flashcards.test_deck_counts import check

    user = make_user()
    settings_update(user=user, fuzzing=False)
    deck_add(user=user, slug="all", now=T0)
    card_ids = list(UserCard.objects.filter(user=user).values_list("card_id", flat=True))
    barrier = threading.Barrier(len(card_ids))
    errors = []

    def work(card_id):
        try:
            barrier.wait()
            card_review(user=user, card_id=card_id, rating=3, review_id=uuid.uuid4(), now=T0)
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(card_id,)) for card_id in card_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors, errors
    assert stored_counts(user=user)[None] == {"cards": 5, "live": 5, "new_cards": 0, "live_new_cards": 0}
    check(user)
