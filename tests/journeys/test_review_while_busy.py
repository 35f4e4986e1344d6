"""A review sent while the server is briefly unavailable (it answers 503 when its database is): on a phone, the
learner taps a rating, is told the answer is being sent again, and the card moves on once the server answers; the
review is stored once. When the server stays busy the card and the answer stay on screen, and tapping the rating
again sends the same review (its id), not a second one."""

import json
import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

UNAVAILABLE = json.dumps({"error": "service_unavailable", "detail": "The database is unavailable; try again shortly.",
                          "fields": {}})

QUESTION = re.compile(r"/api/v1/questions/\d+/$")


def busy_for(page, watch, answers: int) -> list[dict]:
    """The next ``answers`` review posts get the server's 503; the rest go through. Returns every body sent."""
    sent: list[dict] = []
    watch.expect_status(503, r"/api/v1/flashcards/\d+/review/$")

    def handle(route) -> None:
        sent.append(route.request.post_data_json)
        if len(sent) <= answers:
            route.fulfill(status=503, content_type="application/json", body=UNAVAILABLE)
        else:
            route.continue_()

    page.route("**/api/v1/flashcards/*/review/", handle)
    return sent


def test_a_review_during_a_brief_outage_is_resent_and_stored_once(site, phone):
    from apps.flashcards.models import ReviewLog

    page, watch = phone
    sign_up(page, site.url, "busy-reviewer")
    page.goto(f"{site.url}/flashcards")
    page.get_by_role("button", name="Add All cards").tap()
    expect(page.get_by_role("status")).to_contain_text("Added")
    # The first card is a numeric question: its answer box comes with the question, and the button to tap shows only
    # then, so nothing moves under a finger on its way to it. The question is held back to see the card without it.
    held = []
    page.route(QUESTION, lambda route: held.append(route))
    page.goto(f"{site.url}/flashcards/review")
    first = page.get_by_test_id("flashcard").get_attribute("data-card-id")
    expect(page.get_by_test_id("question-loading")).to_be_visible()
    expect(page.get_by_role("button", name="Show answer")).to_have_count(0)
    for route in held:
        route.continue_()
    page.unroute(QUESTION)
    expect(page.get_by_test_id("card-front").get_by_role("textbox")).to_be_visible()

    sent = busy_for(page, watch, answers=2)
    page.get_by_role("button", name="Show answer").tap()
    page.get_by_role("button", name="Good").tap()
    expect(page.get_by_role("status")).to_contain_text("sending your answer again")
    expect(page.get_by_test_id("flashcard")).not_to_have_attribute("data-card-id", first)
    assert len(sent) == 3 and len({body["review_id"] for body in sent}) == 1, sent
    assert ReviewLog.objects.filter(user__username="busy-reviewer").count() == 1

    # Busy for longer than the client waits (5 tries): the card and its answer stay; tapping again resends it.
    page.unroute("**/api/v1/flashcards/*/review/")
    second = page.get_by_test_id("flashcard").get_attribute("data-card-id")
    sent = busy_for(page, watch, answers=5)
    page.get_by_role("button", name="Show answer").tap()
    page.get_by_role("button", name="Again").tap()
    expect(page.get_by_role("status")).to_contain_text("Rate the card again to resend it", timeout=30_000)
    expect(page.get_by_test_id("flashcard")).to_have_attribute("data-card-id", second)
    expect(page.get_by_test_id("card-back")).to_be_visible()
    shot(page, "review-still-busy-phone")
    page.get_by_role("button", name="Again").tap()
    expect(page.get_by_test_id("flashcard")).not_to_have_attribute("data-card-id", second)
    assert len(sent) == 6 and len({body["review_id"] for body in sent}) == 1, sent
    assert ReviewLog.objects.filter(user__username="busy-reviewer").count() == 2
