"""A card made from a numeric question is answered by typing a quantity and graded as practice grades it: units
converted, the question's tolerance, a suggested rating (Good if right, Again if wrong), and no schedule change."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.flashcards.models import Card, ReviewLog, UserCard
from apps.flashcards.services import deck_add
from apps.quiz.models import Question

# 140 GB ± 5 %: right from 133 GB to 147 GB (7 GB either side).
KEY = {"numeric": {"value": 140, "unit": "GB", "tolerance": 0.05, "tolerance_mode": "relative"}}


@pytest.fixture
def numeric_card(content, learner_client, quiet_settings):
    from apps.flashcards.content import sync_all_cards

    question = Question.objects.create(slug="q-weights", kind="numeric", level="core", key=KEY,
                                       prompt="Llama 70B weights in BF16?", answer="70e9 × 2 bytes = 140 GB.")
    question.chapters.set([content["chapters"][0]])
    sync_all_cards()
    quiet_settings(learner_client.user)
    deck_add(user=learner_client.user, slug="all", now=timezone.now())
    return Card.objects.get(source_type="question", source_id=question.pk)


def _check(client, card_id, answer):
    return client.post(f"/api/v1/flashcards/{card_id}/check/", {"answer": answer}, format="json")


@pytest.mark.parametrize(("answer", "grade", "given"), [
    ("140 GB", "correct", 140.0),
    ("1.4e11 bytes", "correct", 140.0),          # 1.4e11 B / 1e9 B per GB
    ("130 GiB", "correct", 139.586437120),       # 130 × 2^30 B = 139.586 GB, within 7 GB
    ("147 GB", "correct", 147.0),                # the edge of the band
    ("150 GB", "wrong", 150.0),                  # 10 GB off
    ("70 GB", "wrong", 70.0),                    # forgot the 2 bytes a parameter
    ("140", "correct", 140.0),                   # no unit: the question's
])
def test_a_typed_answer_is_graded_with_units_and_suggests_a_rating(numeric_card, learner_client, answer, grade,
                                                                   given):
    response = _check(learner_client, numeric_card.pk, answer)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["result"] == grade and body["correct"] is (grade == "correct")
    assert body["suggested_rating"] == (3 if grade == "correct" else 1)
    assert (body["expected"], body["unit"]) == (140, "GB")
    assert body["given_in_unit"] == pytest.approx(given)
    assert body["explanation"] == "Expected 140 GB (±5 %)."


def test_checking_changes_no_schedule(numeric_card, learner_client):
    before = UserCard.objects.get(user=learner_client.user, card=numeric_card)
    assert _check(learner_client, numeric_card.pk, "150 GB").json()["suggested_rating"] == 1
    after = UserCard.objects.get(pk=before.pk)
    assert (after.state, after.due, after.reps, after.lapses) == (before.state, before.due, before.reps, before.lapses)
    assert not ReviewLog.objects.filter(user=learner_client.user).exists()


def test_checking_writes_nothing(numeric_card, learner_client):
    """Cram checks typed answers too, and cram must never touch the schedule: no query of a check writes."""
    with CaptureQueriesContext(connection) as queries:
        assert _check(learner_client, numeric_card.pk, "140 GB").status_code == 200
        assert _check(learner_client, numeric_card.pk, "lots").status_code == 400
    writes = [query["sql"] for query in queries.captured_queries
              if query["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes == []


@pytest.mark.parametrize(("body", "message"), [
    ({"answer": "140 ms"}, "seconds unit"),     # time is not bytes
    ({"answer": "lots"}, "expected a number"),
    ({"answer": "140 parsecs"}, "unknown unit"),
    ({"answer": "   "}, ""),
    ({"answer": "9" * 101}, ""),
    ({}, ""),
])
def test_a_bad_answer_is_a_400_naming_the_answer(numeric_card, learner_client, body, message):
    response = learner_client.post(f"/api/v1/flashcards/{numeric_card.pk}/check/", body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["answer"]
    assert message in response.json()["fields"]["answer"][0]


def test_a_number_too_large_is_a_400_not_a_500(numeric_card, learner_client):
    response = _check(learner_client, numeric_card.pk, "1e400 GB")
    assert response.status_code == 400 and "answer" in response.json()["fields"]


def test_only_numeric_question_cards_are_checked(numeric_card, learner_client, content, card_of):
    open_card = card_of("question", content["questions"][0])
    assert _check(learner_client, open_card.pk, "1").status_code == 409
    term_card = card_of("term", content["term"])
    assert _check(learner_client, term_card.pk, "1").status_code == 409


def test_a_card_not_in_your_collection_is_a_404(numeric_card, make_user):
    from rest_framework.test import APIClient

    stranger = APIClient()
    stranger.force_authenticate(make_user())
    assert _check(stranger, numeric_card.pk, "140 GB").status_code == 404
    assert _check(stranger, 2**63 - 1, "140 GB").status_code == 404


def test_anonymous_is_refused(numeric_card):
    from rest_framework.test import APIClient

    assert _check(APIClient(), numeric_card.pk, "140 GB").status_code == 401
