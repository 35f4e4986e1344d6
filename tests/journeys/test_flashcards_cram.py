"""Cram before the interview: from the deck tree, the weakest studied cards of a deck come first, a card not known
goes to the back of the pile, and the schedule is left exactly as it was."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_cram_the_weakest_cards_without_touching_the_schedule(site, desktop):
    from apps.flashcards.models import CardState, ReviewLog, UserCard

    page, _ = desktop
    sign_up(page, site.url, "crammer")
    page.goto(f"{site.url}/flashcards")
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added")
    mine = UserCard.objects.filter(user__username="crammer").order_by("card_id")
    studied = list(mine.values_list("card_id", flat=True)[:3])
    last_review = timezone.now() - timedelta(days=10, hours=1)
    for card_id, stability in zip(studied, (100, 2, 10), strict=True):  # recall now 0.99, 0.76, 0.90
        mine.filter(card_id=card_id).update(state=CardState.REVIEW, step=None, stability=stability, difficulty=5,
                                            last_review=last_review, due=last_review + timedelta(days=stability))
    before = list(mine.values())

    page.reload()
    page.get_by_role("link", name="Cram All cards").click()
    expect(page.get_by_test_id("cram-summary")).to_contain_text("The 3 weakest of 3 studied cards")
    card = page.get_by_test_id("cram-card")
    expect(card).to_have_attribute("data-card-id", str(studied[1]))  # lowest recall first
    expect(page.get_by_test_id("cram-recall")).to_contain_text("recall now 76%")
    page.keyboard.press("Space")
    page.keyboard.press("1")  # not known: back of the pile
    expect(card).to_have_attribute("data-card-id", str(studied[2]))
    page.keyboard.press("Space")
    page.keyboard.press("3")
    expect(card).to_have_attribute("data-card-id", str(studied[0]))
    page.keyboard.press("Space")
    page.keyboard.press("3")
    expect(card).to_have_attribute("data-card-id", str(studied[1]))  # the one not known comes back
    page.keyboard.press("Space")
    page.get_by_role("button", name="Got it").click()
    expect(page.get_by_test_id("cram-done")).to_contain_text("All known")
    expect(page.get_by_test_id("cram-progress")).to_have_text("Known 3 · again 1 · 0 left")

    page.get_by_label("Include new cards").check()
    expect(page.get_by_test_id("cram-summary")).to_contain_text("new")
    expect(page.get_by_test_id("cram-card")).to_be_visible()
    shot(page, "flashcards-cram")
    assert list(mine.values()) == before
    assert not ReviewLog.objects.filter(user__username="crammer").exists()


def _studied_question_cards(username: str, kinds_and_stability: list[tuple[str, float]]) -> list:
    """One published question's card of each kind, studied ten days ago with the given stability (lower: weaker)."""
    from django.contrib.auth import get_user_model

    from apps.core.models import Status
    from apps.flashcards.models import Card, CardState, SourceType, UserCard
    from apps.quiz.models import Question

    user = get_user_model().objects.get(username=username)
    last_review = timezone.now() - timedelta(days=10, hours=1)
    picked = []
    for kind, stability in kinds_and_stability:
        question = Question.objects.filter(kind=kind, status=Status.PUBLISHED).order_by("id").first()
        card = Card.objects.get(source_type=SourceType.QUESTION, source_id=question.pk)
        UserCard.objects.create(user=user, card=card, added_at=last_review, state=CardState.REVIEW, step=None,
                                stability=stability, difficulty=5, reps=3, last_review=last_review,
                                due=last_review + timedelta(days=stability))
        picked.append((question, card))
    return picked


def test_cram_question_cards_shows_their_options_and_grades_a_typed_number(site, desktop):
    from apps.flashcards.models import ReviewLog
    from tests.journeys.test_flashcards_numeric_check import _in_another_unit, _wrong

    page, _ = desktop
    sign_up(page, site.url, "quizcrammer")
    (choice, choice_card), (numeric, numeric_card) = _studied_question_cards(
        "quizcrammer", [("single_choice", 2), ("numeric", 10)])  # recall now 76 %, then 90 %

    def schedules() -> list[dict]:
        wanted = ("state", "due", "reps", "lapses", "stability", "difficulty", "last_review", "suspended", "buried")
        rows = []
        for card in (choice_card, numeric_card):
            response = page.request.get(f"{site.url}/api/v1/flashcards/{card.pk}/")
            assert response.ok, response.text()
            rows.append({name: response.json()[name] for name in wanted})
        return rows

    before = schedules()
    page.goto(f"{site.url}/flashcards/cram?deck=all")
    card = page.get_by_test_id("cram-card")
    front, back = page.get_by_test_id("card-front"), page.get_by_test_id("card-back")

    # A choice card: its options on the front, the key on the back.
    expect(card).to_have_attribute("data-card-id", str(choice_card.pk))
    expect(card).to_have_attribute("data-kind", "single_choice")
    for option in choice.key["options"]:
        expect(front.get_by_test_id("card-choices")).to_contain_text(option["text"])
    expect(back).to_have_count(0)
    page.keyboard.press("Space")
    right = [option["text"] for option in choice.key["options"] if option["correct"]]
    expect(back.get_by_test_id("answer-key").locator("li.key-right")).to_have_count(len(right))
    expect(back.get_by_test_id("answer-key").locator("li.key-right")).to_contain_text(right)
    expect(page.get_by_test_id("suggested-rating")).to_have_count(0)  # nothing typed, nothing suggested
    page.keyboard.press("3")

    # A numeric card: asks for the number and grades it; a wrong one suggests Again, a right one Got it.
    expect(card).to_have_attribute("data-card-id", str(numeric_card.pk))
    expect(card).to_have_attribute("data-kind", "numeric")
    expect(front.get_by_test_id("card-choices")).to_contain_text(numeric.key["numeric"]["unit"])
    answer = page.get_by_label("Your answer", exact=False)
    answer.fill(_wrong(numeric))
    answer.press("Enter")
    verdict = back.get_by_test_id("check-verdict")
    expect(verdict).to_contain_text("Not within the tolerance")
    expect(verdict).to_contain_text("Suggested rating: Again")
    expect(page.locator(".rating-buttons button.suggested")).to_have_count(1)
    expect(page.locator(".rating-buttons button.suggested")).to_contain_text("Again")
    expect(back.get_by_test_id("answer-key")).to_have_count(0)  # the verdict carries the explanation
    page.keyboard.press("1")  # back of the pile: the only card left, so it comes again, unanswered
    expect(page.get_by_test_id("cram-progress")).to_have_text("Known 1 · again 1 · 1 left")
    expect(back).to_have_count(0)
    answer = page.get_by_label("Your answer", exact=False)
    expect(answer).to_have_value("")
    answer.fill(_in_another_unit(numeric))
    answer.press("Enter")
    expect(verdict).to_contain_text("✓ Correct")
    expect(verdict).to_contain_text("Suggested rating: Got it")
    expect(page.locator(".rating-buttons button.suggested")).to_contain_text("Got it")
    shot(page, "flashcards-cram-numeric-check")
    page.locator(".rating-buttons button.suggested").click()
    expect(page.get_by_test_id("cram-done")).to_contain_text("All known")
    expect(page.get_by_test_id("cram-progress")).to_have_text("Known 2 · again 1 · 0 left")

    assert schedules() == before  # cramming, checking included, leaves the schedule as it was
    assert not ReviewLog.objects.filter(user__username="quizcrammer").exists()
