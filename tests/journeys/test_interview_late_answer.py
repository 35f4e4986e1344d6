"""Interview mode with a late answer: the clock runs out on the second question, the answer is marked late and
scores half; the report counts it, keeps weak and strong topics apart, and Back leaves the report for good.
Also: an open question is drafted in a box before the model answer, and a "Good" is shown as a self-rating."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot
from tests.journeys.practice import answer_correctly

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ANSWERABLE = ["single_choice", "multiple_choice", "numeric"]


def test_interview_with_a_late_answer(site, desktop):
    from apps.quiz.models import Question

    page, _ = desktop
    # Auto-graded kinds only, so both answers can be right and only lateness separates their scores.
    Question.objects.exclude(kind__in=ANSWERABLE).update(status="draft")
    page.clock.install()

    page.goto(f"{site.url}/practice")
    page.get_by_role("link", name="interview mode").click()
    expect(page).to_have_url(re.compile("/practice/interview$"))
    page.get_by_label("Questions").fill("2")
    page.get_by_label("Seconds per question").fill("30")
    page.get_by_role("button", name="Start interview").click()

    runner = page.get_by_test_id("runner")
    expect(runner).to_have_attribute("data-question-id", re.compile(r"\d+"))
    expect(page.get_by_test_id("timer")).to_contain_text("Time left")
    answer_correctly(page, Question.objects.get(pk=int(runner.get_attribute("data-question-id"))))
    result = page.get_by_test_id("result")
    expect(result).to_contain_text("score 100 %")
    expect(page.get_by_test_id("late")).to_have_count(0)
    page.get_by_role("button", name="Next question").click()

    expect(page.get_by_test_id("progress")).to_have_text("Question 2 of 2")
    page.clock.fast_forward("00:45")
    expect(page.get_by_test_id("timer")).to_contain_text("Over time")
    answer_correctly(page, Question.objects.get(pk=int(runner.get_attribute("data-question-id"))))
    expect(page.get_by_test_id("late")).to_contain_text("late")
    expect(result).to_contain_text("Correct, but late")
    expect(result).to_contain_text("score 50 %")
    shot(page, "interview-late-answer")

    page.get_by_role("button", name="See the report").click()
    expect(page).to_have_url(re.compile(r"/summary$"))
    expect(page.get_by_role("heading", name="Interview report")).to_be_visible()
    expect(page.get_by_test_id("summary-score")).to_have_text("75 %")
    expect(page.get_by_test_id("interview-time")).to_contain_text("1 over time")
    weakest = page.get_by_test_id("weakest-topics").locator("li strong").all_inner_texts()
    strongest = page.get_by_test_id("strongest-topics").locator("li strong").all_inner_texts()
    assert weakest and not set(weakest) & set(strongest), (weakest, strongest)
    shot(page, "interview-report")

    # Back leaves the report: to the interview form, not to the session that bounces to the report again.
    page.go_back()
    expect(page).to_have_url(re.compile("/practice/interview$"))
    page.wait_for_timeout(500)
    expect(page).to_have_url(re.compile("/practice/interview$"))


def test_open_question_is_drafted_then_self_rated(site, phone):
    page, _ = phone
    page.goto(f"{site.url}/practice")
    page.get_by_label("Kind").select_option("open")
    page.get_by_label("Questions").fill("1")
    page.get_by_role("button", name="Start practice").click()

    expect(page.get_by_test_id("runner")).to_have_attribute("data-question-kind", "open")
    draft = page.get_by_label("Your answer")
    draft.fill("Prefill is compute-bound; decode reads the weights and the KV cache for each token.")
    page.get_by_role("button", name="Reveal answer").click()
    result = page.get_by_test_id("result")
    expect(result).to_contain_text("Model answer")
    expect(draft).to_have_value(re.compile("^Prefill is compute-bound"))
    page.get_by_role("button", name="3 Good").click()
    expect(result).to_contain_text("You rated: Good")
    expect(result).not_to_contain_text("Correct")
    expect(result).to_contain_text("counts 80 %")
    shot(page, "open-question-self-rated-phone")
    page.get_by_role("button", name="See summary").click()
    expect(page.get_by_role("heading", name="Practice summary")).to_be_visible()
