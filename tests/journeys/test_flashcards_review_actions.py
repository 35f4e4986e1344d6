"""Flashcards: what a learner does to a card while reviewing it, all by keyboard: flag, note, the source links,
Again count, time per card and the daily goal, undo with Ctrl+Z and z, bury and suspend (each undone)."""

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _current(page):
    from apps.flashcards.models import UserCard

    card_id = int(page.get_by_test_id("flashcard").get_attribute("data-card-id"))
    return UserCard.objects.select_related("card").get(user__username="reviewer", card_id=card_id)


def test_flag_note_time_goal_undo_bury_and_suspend_during_review(site, desktop):
    from apps.flashcards.models import ReviewLog

    page, _ = desktop
    sign_up(page, site.url, "reviewer")
    page.goto(f"{site.url}/flashcards/settings")
    page.get_by_label("Daily goal (reviews a day, 0 for none)").fill("2")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Saved.")
    page.get_by_role("link", name="Decks", exact=True).click()
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added")

    page.get_by_role("link", name="Review", exact=True).click()
    expect(page.get_by_test_id("flashcard")).to_be_visible()
    expect(page.get_by_test_id("shortcuts")).to_contain_text("z or Ctrl+Z undo")
    expect(page.get_by_test_id("shortcuts")).to_contain_text("Shift+1–7 flag")
    expect(page.get_by_test_id("daily-goal")).to_have_text("Today 0 / 2")
    first = _current(page)

    page.keyboard.press("Shift+Digit3")  # green
    expect(page.get_by_test_id("card-flag")).to_have_text("Green flag")
    first.refresh_from_db()
    assert first.flag == 3

    page.keyboard.press("n")
    page.get_by_label("Your private note").fill("Remember: prefill is compute-bound.")
    page.get_by_role("button", name="Save note").click()
    expect(page.get_by_test_id("card-note")).to_contain_text("Remember: prefill is compute-bound.")
    first.refresh_from_db()
    assert first.note == "Remember: prefill is compute-bound."

    links = page.get_by_test_id("source-link")
    expect(links.first).to_be_visible()
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert any(href.startswith("/learn/") for href in hrefs), hrefs
    if first.card.source_type == "question":
        assert hrefs[0] == f"/practice/questions/{first.card.source_id}"

    page.keyboard.press("Space")
    expect(page.get_by_test_id("card-back")).to_be_visible()  # rate only once the answer shows
    page.keyboard.press("1")  # Again
    expect(page.get_by_test_id("again-count")).to_have_text("Again this session: 1")
    expect(page.get_by_test_id("daily-goal")).to_have_text("Today 1 / 2")
    expect(page.get_by_test_id("card-time")).to_contain_text("Last card")
    expect(page.get_by_test_id("card-time")).to_contain_text("a card today")
    log = ReviewLog.objects.get(user__username="reviewer")
    assert log.rating == 1 and log.duration_ms is not None and log.duration_ms > 0

    page.keyboard.press("Control+z")
    expect(page.get_by_role("status")).to_have_text("Undone: review.")
    expect(page.get_by_test_id("again-count")).to_have_text("Again this session: 0")
    expect(page.get_by_test_id("daily-goal")).to_have_text("Today 0 / 2")
    assert not ReviewLog.objects.filter(user__username="reviewer").exists()
    assert _current(page).pk == first.pk  # back to the card, new again, with its flag and note
    expect(page.get_by_test_id("card-flag")).to_have_text("Green flag")

    page.keyboard.press("b")
    expect(page.get_by_role("status")).to_have_text("Buried until tomorrow.")
    expect(page.get_by_test_id("flashcard")).not_to_have_attribute("data-card-id", str(first.card_id))
    first.refresh_from_db()
    assert first.buried_until is not None
    page.keyboard.press("z")
    expect(page.get_by_role("status")).to_have_text("Undone: bury.")
    first.refresh_from_db()
    assert first.buried_until is None

    page.keyboard.press("s")
    expect(page.get_by_role("status")).to_have_text("Suspended.")
    first.refresh_from_db()
    assert first.suspended
    page.keyboard.press("Control+z")
    expect(page.get_by_role("status")).to_have_text("Undone: suspend.")
    first.refresh_from_db()
    assert not first.suspended

    for done, reveal in ((1, "Enter"), (2, "Space")):  # two Good reviews reach the goal; Enter reveals as Space does
        page.keyboard.press(reveal)
        expect(page.get_by_test_id("card-back")).to_be_visible()
        page.keyboard.press("3")
        expect(page.get_by_test_id("queue-progress")).to_contain_text(f"Reviewed {done}")
    expect(page.get_by_test_id("daily-goal")).to_contain_text("Today 2 / 2 — goal reached")
    shot(page, "flashcards-review-actions")
