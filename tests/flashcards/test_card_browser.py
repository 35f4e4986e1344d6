"""The card browser: search equals a direct ORM query, sort and pages, bulk actions, one card's history."""

from datetime import UTC, date, datetime, time, timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from apps.flashcards.models import UserCard
from apps.flashcards.services import card_review, deck_add
from tests.flashcards.conftest import new_review_id

CARDS = "/api/v1/flashcards/cards/"
BULK = "/api/v1/flashcards/cards/bulk/"


@pytest.fixture
def collection(content, card_of, learner_client, quiet_settings):
    user = learner_client.user
    quiet_settings(user)
    deck_add(user=user, slug="all", now=timezone.now())
    q1, q2, q3 = (card_of("question", q).id for q in content["questions"])
    past = timezone.now() - timedelta(days=9)
    card_review(user=user, card_id=q1, rating=3, review_id=new_review_id(), now=past)
    card_review(user=user, card_id=q2, rating=4, review_id=new_review_id(), now=past)
    card_review(user=user, card_id=q2, rating=1, review_id=new_review_id(), now=past + timedelta(days=8))
    UserCard.objects.filter(user=user, card_id=q3).update(suspended=True)
    ids = {"q1": q1, "q2": q2, "q3": q3, "term": card_of("term", content["term"]).id,
           "number": card_of("number", content["number"]).id}
    return learner_client, ids


def _ids(client, **query) -> list[int]:
    response = client.get(CARDS, {"page_size": 500, **query})
    assert response.status_code == 200, response.content
    return [row["card_id"] for row in response.json()["results"]]


CASES = [
    ({}, Q()),
    ({"q": "DECODE"}, Q(card__front__icontains="decode") | Q(card__back__icontains="decode")),
    ({"q": "token"}, Q(card__front__icontains="token") | Q(card__back__icontains="token")),
    ({"deck": "chapter-c1"}, Q(card__decks__slug="chapter-c1")),
    ({"deck": "part-serving"}, Q(card__decks__slug="part-serving")),
    ({"tag": "batching"}, Q(card__decks__slug="topic-batching")),
    ({"state": [0]}, Q(state=0)),
    ({"state": [1, 3]}, Q(state__in=[1, 3])),
    ({"suspended": "true"}, Q(suspended=True)),
    ({"lapses_min": 1}, Q(lapses__gte=1)),
    ({"difficulty_min": 1, "difficulty_max": 5}, Q(difficulty__gte=1, difficulty__lte=5)),
    ({"deck": "part-foundations", "state": [0], "suspended": "false"},
     Q(card__decks__slug="part-foundations", state=0, suspended=False)),
]


@pytest.mark.parametrize("query, expected", CASES)
def test_search_returns_what_a_direct_query_returns(collection, query, expected):
    client, _ = collection
    direct = list(UserCard.objects.filter(user=client.user).filter(expected).order_by("due", "card_id")
                  .values_list("card_id", flat=True))
    assert _ids(client, **query) == direct


def test_due_days_are_the_learners_days(collection):
    client, ids = collection
    today = timezone.now().date()
    tomorrow_starts = datetime.combine(today + timedelta(days=1), time(0), tzinfo=UTC)  # quiet settings: UTC, 0 h
    due_today_or_before = set(UserCard.objects.filter(user=client.user, due__lt=tomorrow_starts)
                              .values_list("card_id", flat=True))
    assert set(_ids(client, due_before=(today + timedelta(days=1)).isoformat())) == due_today_or_before
    assert ids["q2"] not in _ids(client, due_after=(today + timedelta(days=30)).isoformat())


def test_sort_and_pages(collection):
    client, ids = collection
    by_lapses = _ids(client, sort="-lapses")
    assert by_lapses[0] == ids["q2"]
    assert _ids(client, sort="card") == sorted(ids.values())
    first = client.get(CARDS, {"sort": "card", "page_size": 2}).json()
    second = client.get(CARDS, {"sort": "card", "page_size": 2, "page": 2}).json()
    assert first["count"] == second["count"] == 5
    assert [r["card_id"] for r in first["results"] + second["results"]] == sorted(ids.values())[:4]


@pytest.mark.parametrize("query, field", [
    ({"state": 9}, "state"), ({"difficulty_min": 0}, "difficulty_min"), ({"sort": "bogus"}, "sort"),
    ({"difficulty_min": 6, "difficulty_max": 2}, "difficulty_max"), ({"due_before": "soon"}, "due_before"),
    ({"page": 0}, "page"), ({"page_size": 10_000}, "page_size"), ({"deck": "not a slug"}, "deck"),
    ({"lapses_min": -1}, "lapses_min"),
])
def test_bad_search_input_is_400_naming_the_field(collection, query, field):
    client, _ = collection
    response = client.get(CARDS, query)
    assert response.status_code == 400 and field in response.json()["fields"], response.content


def test_bulk_suspend_unsuspend_bury_reset_reschedule(collection):
    client, ids = collection
    chosen = [ids["q1"], ids["q2"]]

    def post(**body):
        response = client.post(BULK, {"card_ids": chosen, **body}, format="json")
        assert response.status_code == 200, response.content
        return response.json()

    def rows():
        return {uc.card_id: uc for uc in UserCard.objects.filter(user=client.user, card_id__in=chosen)}

    assert post(action="suspend") == {"updated": 2, "skipped": 0}
    assert all(uc.suspended for uc in rows().values())
    post(action="unsuspend")
    assert not any(uc.suspended for uc in rows().values())
    post(action="bury")
    assert all(uc.buried_until > timezone.now() for uc in rows().values())
    assert set(_ids(client, buried="true")) == set(chosen)
    post(action="unbury")
    assert all(uc.buried_until is None for uc in rows().values())
    post(action="reschedule", due=(date.today() + timedelta(days=10)).isoformat())
    assert all(uc.due.date() == date.today() + timedelta(days=10) for uc in rows().values())
    post(action="reset")
    assert all((uc.state, uc.reps, uc.lapses, uc.stability) == (0, 0, 0, None) for uc in rows().values())
    assert client.get(f"/api/v1/flashcards/{ids['q2']}/").json()["history"]  # the log survives a reset


def test_bulk_with_another_learners_card_is_404_and_changes_nothing(collection, make_user):
    client, ids = collection
    other = make_user()
    deck_add(user=other, slug="all", now=timezone.now())
    UserCard.objects.filter(user=client.user, card_id=ids["term"]).delete()  # only the other learner has it now
    response = client.post(BULK, {"card_ids": [ids["q1"], ids["term"]], "action": "suspend"}, format="json")
    assert response.status_code == 404
    assert not UserCard.objects.get(user=client.user, card_id=ids["q1"]).suspended
    assert not UserCard.objects.get(user=other, card_id=ids["term"]).suspended


@pytest.mark.parametrize("body, field", [
    ({"action": "explode"}, "action"), ({"action": "reschedule"}, "due"), ({"action": "suspend", "card_ids": []},
                                                                            "card_ids"),
    ({"action": "reschedule", "due": "tomorrow"}, "due"), ({"action": "suspend", "card_ids": ["x"]}, "card_ids"),
])
def test_bad_bulk_input_is_400_naming_the_field(collection, body, field):
    client, ids = collection
    response = client.post(BULK, {"card_ids": [ids["q1"]], **body}, format="json")
    assert response.status_code == 400, response.content
    assert any(name.split(".")[0] == field for name in response.json()["fields"]), response.content


def test_card_history_and_memory_over_time(collection):
    client, ids = collection
    body = client.get(f"/api/v1/flashcards/{ids['q2']}/").json()
    assert [entry["rating"] for entry in body["history"]] == [4, 1]
    first, second = body["history"]
    assert first["stability"] > 0 and second["stability"] < first["stability"]  # a lapse shrinks stability
    assert first["retrievability_before"] is None and 0 < second["retrievability_before"] < 1
    assert body["lapses"] == 1 and {d["slug"] for d in body["decks"]} >= {"part-serving", "chapter-c2"}


def test_other_learners_card_detail_is_404(collection, make_user):
    from rest_framework.test import APIClient

    _, ids = collection
    stranger = APIClient()
    stranger.force_authenticate(make_user())
    assert stranger.get(f"/api/v1/flashcards/{ids['q1']}/").status_code == 404
    assert stranger.get(CARDS).json()["count"] == 0


def test_search_is_a_bounded_number_of_queries(collection, django_assert_max_num_queries):
    client, _ = collection
    with django_assert_max_num_queries(6):
        client.get(CARDS, {"q": "what", "deck": "all", "state": [0, 2], "sort": "-difficulty"})


@pytest.mark.parametrize("sort", ["due", "-card", "-difficulty", "added"])
@pytest.mark.parametrize("page_size", [1, 2, 3])
def test_every_page_tells_the_whole_count_and_the_pages_hold_every_match_once(collection, page_size, sort):
    """However the count is found (apart, only when the page does not tell it, in an order an index gives; with the
    page, in any other order): on every page, the last one, one past it and far past it, it is the number of
    matches a direct query finds, and the pages together hold each match once, in order."""
    client, _ = collection
    expected = _ids(client, state=[0, 2], sort=sort)
    assert len(expected) == UserCard.objects.filter(user=client.user, state__in=[0, 2]).count() >= page_size
    seen = []
    last = -(-len(expected) // page_size)
    for page in [*range(1, last + 2), last + 5]:
        body = client.get(CARDS, {"state": [0, 2], "sort": sort, "page_size": page_size, "page": page}).json()
        assert body["count"] == len(expected), page
        seen += [row["card_id"] for row in body["results"]]
    assert seen == expected
