import pytest
from playwright.sync_api import expect

from tests.flashcards.conftest import content  # noqa: F401  (the small curriculum fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_add_deck_review_by_keyboard_undo_and_stats(live_server, page, content):  # noqa: F811
    page.goto(f"{live_server.url}/signup")
    page.get_by_label("Username").fill("cardfan")
    page.get_by_label("Password").fill("correct-horse-battery-9")
    page.get_by_role("button", name="Create account").click()
    page.get_by_test_id("signed-in-as").wait_for()

    page.goto(f"{live_server.url}/flashcards")
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added 5 cards")
    expect(page.get_by_test_id("deck-all")).to_contain_text("5 / 5")

    page.get_by_role("link", name="Review", exact=True).click()
    for done in range(1, 4):
        page.get_by_test_id("card-front").wait_for()
        page.keyboard.press("Space")
        expect(page.get_by_role("button", name="3 Good 10m")).to_be_visible()
        page.keyboard.press("3")
        expect(page.get_by_test_id("queue-progress")).to_contain_text(f"Reviewed {done}")
    page.keyboard.press("z")
    expect(page.get_by_test_id("queue-progress")).to_contain_text("Reviewed 2")

    page.get_by_role("link", name="Stats").click()
    expect(page.get_by_test_id("stats-summary")).to_contain_text("2 reviews in the last year")
    expect(page.get_by_test_id("heatmap").locator("rect[data-count='2']")).to_have_count(1)
    expect(page.get_by_test_id("forecast-chart")).to_be_visible()
    expect(page.get_by_test_id("forecast-y-axis")).to_contain_text("0")  # the bars have a scale
    expect(page.get_by_test_id("stats-summary")).to_contain_text("FSRS's prediction for the cards you have studied")
    expect(page.get_by_test_id("retention-chart")).to_contain_text("no due card reviewed")  # day one: none came due
