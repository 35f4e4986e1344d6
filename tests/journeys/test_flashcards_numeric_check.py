"""A learner answers cards made from numeric questions by typing a quantity in any unit of the right kind; the answer
is graded as practice grades it, the back says how, the suggested rating is highlighted, and the learner still
rates with the keys (or taps) as they choose. Checking alone changes no schedule."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _numeric_cards(username: str, count: int) -> list:
    """``count`` cards of published numeric questions, due in this order in the learner's collection."""
    from django.contrib.auth import get_user_model

    from apps.core.models import Status
    from apps.flashcards.models import Card, SourceType, UserCard
    from apps.quiz.models import Question

    user = get_user_model().objects.get(username=username)
    questions = list(Question.objects.filter(kind="numeric", status=Status.PUBLISHED).order_by("id")[:count])
    start = timezone.now() - timedelta(hours=1)
    for index, question in enumerate(questions):
        card = Card.objects.get(source_type=SourceType.QUESTION, source_id=question.pk)
        UserCard.objects.create(user=user, card=card, due=start + timedelta(seconds=index), added_at=start)
    return questions


def _in_another_unit(question) -> str:
    """The right value written in another unit of the same kind (GB as MB, s as ms), when the question has one."""
    from apps.quiz.units import UNITS, convert

    spec = question.key["numeric"]
    dimension, factor = UNITS[spec["unit"]]
    for unit, (other_dimension, other_factor) in UNITS.items():
        if unit and other_dimension == dimension and other_factor != factor and dimension != "dimensionless":
            return f"{convert(spec['value'], spec['unit'], unit):.6g} {unit}"
    return f"{spec['value']:g} {spec['unit']}".strip()


def _wrong(question) -> str:
    spec = question.key["numeric"]
    return f"{(abs(spec['value']) + 1) * 10:g} {spec['unit']}".strip()


def _reviews(username: str) -> list[int]:
    from apps.flashcards.models import ReviewLog

    return list(ReviewLog.objects.filter(user__username=username).order_by("reviewed_at").values_list("rating", flat=True))


def test_type_a_number_see_the_grade_and_rate_by_keyboard(site, desktop):
    page, watch = desktop
    sign_up(page, site.url, "estimator")
    first, second = _numeric_cards("estimator", 2)
    key_probes = []  # the verdict carries the explanation: a checked card never asks practice for its key
    page.on("request", lambda request: key_probes.append(request.url)
            if re.search(r"/api/v1/questions/\d+/check/$", request.url) else None)
    page.goto(f"{site.url}/flashcards/review")
    expect(page.get_by_test_id("card-front")).to_contain_text(first.prompt.split("\n")[0][:40])

    watch.expect_status(400, r"/api/v1/flashcards/\d+/check/$")  # not a number: said by the field, no grade
    answer = page.get_by_label("Your answer", exact=False)
    answer.fill("lots")
    answer.press("Enter")
    expect(page.get_by_test_id("numeric-answer").get_by_role("alert")).to_contain_text("number")
    expect(page.get_by_test_id("card-back")).to_have_count(0)

    answer.fill(_in_another_unit(first))
    answer.press("Enter")
    verdict = page.get_by_test_id("check-verdict")
    expect(verdict).to_contain_text("✓ Correct")
    expect(verdict).to_contain_text("Suggested rating: Good")
    expect(page.locator(".rating-buttons button.suggested")).to_have_count(1)
    expect(page.locator(".rating-buttons button.suggested")).to_contain_text("Good")
    assert _reviews("estimator") == []  # checking alone rates nothing
    shot(page, "flashcards-numeric-check-correct")
    page.keyboard.press("3")
    expect(page.get_by_test_id("queue-progress")).to_contain_text("Reviewed 1")

    answer = page.get_by_label("Your answer", exact=False)
    answer.fill(_wrong(second))
    answer.press("Enter")
    expect(page.get_by_test_id("check-verdict")).to_contain_text("Not within the tolerance")
    expect(page.locator(".rating-buttons button.suggested")).to_contain_text("Again")
    page.keyboard.press("2")  # the learner's choice stands: Hard, not the suggested Again
    expect(page.get_by_test_id("queue-progress")).to_contain_text("Reviewed 2")
    assert _reviews("estimator") == [3, 2]
    assert key_probes == []


def test_on_a_phone_tap_check_and_tap_the_suggested_rating(site, phone):
    page, _ = phone
    sign_up(page, site.url, "thumbs")
    (question,) = _numeric_cards("thumbs", 1)
    page.goto(f"{site.url}/flashcards/review")
    spec = question.key["numeric"]
    page.get_by_label("Your answer", exact=False).fill(f"{spec['value']:g} {spec['unit']}".strip())
    page.get_by_role("button", name="Check").tap()
    expect(page.get_by_test_id("check-verdict")).to_contain_text("✓ Correct")
    suggested = page.locator(".rating-buttons button.suggested")
    expect(suggested).to_contain_text("Good")
    suggested.tap()
    expect(page.get_by_test_id("queue-progress")).to_contain_text("Reviewed 1")
    assert _reviews("thumbs") == [3]
