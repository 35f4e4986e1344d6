"""Flashcards card browser: search, select, bulk suspend and reschedule, and one card's history and memory chart."""

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_search_select_bulk_suspend_and_read_a_cards_history(site, desktop):
    from apps.flashcards.models import UserCard

    page, _ = desktop
    sign_up(page, site.url, "browsefan")
    page.goto(f"{site.url}/flashcards")
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added")

    page.get_by_role("link", name="Review", exact=True).click()
    expect(page.get_by_test_id("flashcard")).to_be_visible()
    page.keyboard.press("Space")
    expect(page.get_by_test_id("card-back")).to_be_visible()  # rate only once the answer shows
    page.keyboard.press("1")  # Again: one review in the card's history
    expect(page.get_by_test_id("queue-progress")).to_contain_text("Reviewed 1")
    reviewed = UserCard.objects.filter(user__username="browsefan", reps=1).get()

    page.get_by_role("link", name="Browse", exact=True).click()
    expect(page.get_by_test_id("browse-count")).to_contain_text("cards")
    page.get_by_label("Text").fill("KV cache")
    page.get_by_role("button", name="Search", exact=True).click()
    expected = UserCard.objects.filter(user__username="browsefan").filter(
        card__front__icontains="KV cache").count() + UserCard.objects.filter(user__username="browsefan").filter(
        card__back__icontains="KV cache").exclude(card__front__icontains="KV cache").count()
    expect(page.get_by_test_id("browse-count")).to_contain_text(f"{expected} cards")
    page.get_by_label("Select all on this page").check()
    on_page = min(expected, 50)
    expect(page.get_by_test_id("selected-count")).to_have_text(f"{on_page} selected")
    page.get_by_role("button", name="Suspend", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(f"suspend: {on_page} cards")
    assert UserCard.objects.filter(user__username="browsefan", suspended=True).count() == on_page
    shot(page, "flashcards-browser-suspended")

    page.get_by_label("Text").fill("")
    page.get_by_label("State").select_option("1")  # learning: the card rated Again
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_test_id("browse-count")).to_contain_text("1 card ")
    page.get_by_role("button", name=f"Details of card {reviewed.card_id}").click()
    expect(page.get_by_test_id("review-history").locator("tbody tr")).to_have_count(1)
    expect(page.get_by_test_id("review-history")).to_contain_text("Again")
    expect(page.get_by_test_id("memory-chart")).to_be_visible()

    page.get_by_label(f"Select card {reviewed.card_id}").check()
    page.get_by_label("Reschedule to").fill("2031-05-04")
    page.get_by_role("button", name="Reschedule", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("reschedule: 1 card")
    reviewed.refresh_from_db()
    assert reviewed.due.date().isoformat() == "2031-05-04"
