"""Search with a typo, open a question result: its page has the prompt, an answer form, grading with the
explanation, and its chapter."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot
from tests.journeys.practice import answer_correctly

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_search_opens_a_question_page_that_grades_and_leads_to_its_chapter(site, desktop):
    from apps.quiz.models import Question

    page, _ = desktop
    question = Question.objects.get(prompt__contains="3,000-word English document")
    chapter = question.chapters.order_by("part__order", "order").first()

    page.goto(f"{site.url}/learn")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    page.keyboard.press("Control+k")
    page.get_by_role("combobox", name="Search chapters, terms and questions").fill("3,000-word documnet")
    expect(page.get_by_role("option").filter(has_text="3,000-word")).to_be_visible()
    for _ in range(12):
        selected = page.locator('[role="option"][aria-selected="true"]').inner_text()
        if selected.lower().startswith("question") and "3,000-word" in selected:
            break
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(f"/practice/questions/{question.pk}$"))

    view = page.get_by_test_id("question-page")
    expect(view.locator(".question-prompt")).to_contain_text("3,000-word English document")
    expect(page.get_by_test_id("question-chapters")).to_contain_text(chapter.title)
    expect(page).to_have_title(re.compile("3,000-word"))

    # A wrong answer is graded, with the explanation of the right one.
    page.get_by_label("Your answer").fill("1")
    page.get_by_role("button", name="Check answer").click()
    result = page.get_by_test_id("result")
    expect(result).to_contain_text("Not quite")
    spec = question.key["numeric"]
    expect(result.locator(".explanation")).to_contain_text(f"Expected {spec['value']:g} {spec['unit']}")

    # Again, in another unit: the server converts and grades it correct.
    page.get_by_role("button", name="Try again").click()
    answer_correctly(page, question)
    expect(result).to_contain_text("score 100 %")
    shot(page, "question-page-correct")

    page.get_by_test_id("question-chapters").get_by_role("link", name=chapter.title).click()
    expect(page).to_have_url(re.compile(f"/learn/{chapter.slug}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(chapter.title)


def test_a_choice_question_page_on_a_phone(site, phone):
    from apps.quiz.models import Question

    page, _ = phone
    question = Question.objects.filter(kind="multiple_choice", status="published").order_by("id").first()
    page.goto(f"{site.url}/practice/questions/{question.pk}")
    for option in question.key["options"]:
        expect(page.locator("label.choice", has_text=option["text"])).to_be_visible()
    answer_correctly(page, question)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
