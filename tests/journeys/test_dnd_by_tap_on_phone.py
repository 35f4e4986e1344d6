"""Drag-and-drop questions answered by touch on a phone, where HTML5 drag and drop does not reach: tap an item to pick
it up, then tap where it goes (another item's place in an ordering, or a bin); every move is announced."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_practice import BINS, ORDER, items, seed
from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def checks(live_server):
    from apps.quiz.models import Question, Topic

    seed()
    topic = Topic.objects.create(slug="drag-and-drop")
    for question in Question.objects.filter(kind__in=("ordering", "categorize")):
        question.topics.add(topic)
    return live_server


def test_an_ordering_is_answered_by_tapping_on_a_phone(checks, phone):
    page, _ = phone
    page.goto(f"{checks.url}/practice/checks")
    page.get_by_role("link", name="The ordering prompt").tap()
    expect(page.get_by_role("heading", level=1)).to_have_text("Drag-and-drop check: ordering")  # not its slug
    page.get_by_test_id("dnd-item").first.wait_for()
    for target, text in enumerate(ORDER):
        position = items(page).index(text)
        if position == target:
            continue
        page.get_by_test_id("dnd-item").nth(position).tap()
        expect(page.get_by_test_id("dnd-announcer")).to_contain_text(f"Picked up {text}")
        page.get_by_test_id("dnd-item").nth(target).tap()
        expect(page.get_by_test_id("dnd-announcer")).to_have_text(f"Dropped {text}, position {target + 1} of 4.")
    assert items(page) == ORDER
    page.get_by_role("button", name="Check answer").tap()
    expect(page.get_by_test_id("result").locator("h3")).to_contain_text("Correct")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_categorize_question_is_answered_by_tapping_item_then_bin_on_a_phone(checks, phone):
    page, _ = phone
    page.goto(f"{checks.url}/practice/checks")
    page.get_by_role("link", name="The categorize prompt").tap()
    page.get_by_test_id("dnd-item").first.wait_for()
    check = page.get_by_role("button", name="Check answer")
    expect(check).to_be_disabled()  # nothing placed yet
    bins = ["Compute-bound", "Memory-bound"]
    for text, bin_name in BINS.items():
        page.get_by_test_id("dnd-item").filter(has_text=text).tap()
        page.get_by_test_id(f"bin-{bins.index(bin_name) + 1}").tap()
        expect(page.get_by_test_id("dnd-announcer")).to_have_text(f"Dropped {text} in {bin_name}.")
    expect(page.get_by_test_id("bin-1").get_by_test_id("dnd-item")).to_have_count(2)
    expect(page.get_by_test_id("bin-unsorted").get_by_test_id("dnd-item")).to_have_count(0)
    shot(page, "dnd-categorize-by-tap-phone")
    check.tap()
    expect(page.get_by_test_id("result").locator("h3")).to_contain_text("Correct")
