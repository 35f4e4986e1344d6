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
