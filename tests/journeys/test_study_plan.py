"""A new learner plans for an interview in 14 days from the start page, follows day 1 (reads today's first chapter,
adds the cards and learns one, answers a question of the plan's practice set), and the plan moves: the chapter
leaves today's list, the next one takes its place, day 2 changes and readiness changes. Desk and phone width."""

import re

import pytest
from playwright.sync_api import expect

from apps.quiz.models import Question
from tests.journeys.conftest import shot, sign_up
from tests.journeys.practice import answer_correctly

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_a_new_learner_plans_follows_day_one_and_the_plan_moves(site, open_page, kind):
    page, watch = open_page(kind)
    watch.expect_status(404, r"/api/v1/study-plan/$")  # no plan yet: the page shows the form
    sign_up(page, site.url, f"planner-{kind}")
    if kind == "phone":
        expect(page.get_by_test_id("goal-interview")).to_be_visible()
    page.get_by_test_id("goal-interview").get_by_role("link", name="Plan the days to your interview date").click()
    expect(page).to_have_url(re.compile("/plan$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Study plan")

    form = page.get_by_role("form", name="Study plan settings")
    form.get_by_label("Minutes a day").fill("60")
    form.get_by_label("Level").select_option("mid")
    form.get_by_role("button", name="Make my plan").click()

    summary = page.get_by_test_id("plan-summary")
    expect(summary).to_contain_text("14 days")
    expect(summary.get_by_role("link", name="Add to your calendar (.ics)")).to_have_attribute(
        "href", "/api/v1/study-plan/calendar.ics")
    today = page.get_by_test_id("plan-today")
    first_read = today.get_by_role("link", name=re.compile("^Read “"))
    expect(first_read.first).to_be_visible()
    expect(today.get_by_role("link", name=re.compile("^Practice set: "))).to_be_visible()
    expect(page.get_by_test_id("plan-calendar").locator("li")).to_have_count(14)
    readiness_before = page.get_by_test_id("readiness-overall").inner_text()
    day_two_before = page.get_by_test_id("plan-calendar").locator("li").nth(1).inner_text()
    chapter_title = re.match("Read “(.*)”", first_read.first.inner_text()).group(1)
    second_title = re.match("Read “(.*)”", first_read.nth(1).inner_text()).group(1) if first_read.count() > 1 else None
    shot(page, f"study-plan-day-1-{kind}")

    # Day 1: tick the first chapter, read it, mark it understood.
    today.get_by_role("checkbox").nth(0).check()
    first_read.first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(chapter_title)
    page.get_by_role("button", name="Mark as understood").click()
    expect(page.get_by_test_id("chapter-status")).to_contain_text("understood")
    # ...add the cards (here all of them, from the flashcards page the plan links to) and learn the first new one...
    page.goto(f"{site.url}/plan")
    page.get_by_test_id("plan-today").get_by_role("link", name=re.compile("cards of today's chapters")).click()
    expect(page).to_have_url(re.compile("/flashcards$"))
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added")
    page.goto(f"{site.url}/plan")
    reviews = page.get_by_test_id("plan-today").get_by_role("link", name=re.compile(r"^Learn \d+ new cards?"))
    expect(reviews).to_be_visible()
    reviews.click()
    expect(page).to_have_url(re.compile("/flashcards/review$"))
    first_card = page.get_by_test_id("flashcard").get_attribute("data-card-id")
    page.get_by_role("button", name="Show answer").click()
    page.get_by_role("button", name="Good").click()
    expect(page.get_by_test_id("flashcard")).not_to_have_attribute("data-card-id", first_card)
    # ...and practise: the plan's practice set (its weakest topic at the plan's level), one question answered right.
    page.goto(f"{site.url}/plan")
    practice = page.get_by_test_id("plan-today").get_by_role("link", name=re.compile("^Practice set: "))
    topic = re.search(r"topic=([\w-]+)", practice.get_attribute("href")).group(1)
    practice.click()
    expect(page).to_have_url(re.compile(rf"/practice\?topic={topic}&level=mid$"))
    form = page.locator("form", has=page.get_by_role("button", name="Start practice"))
    expect(form.get_by_label("Topic")).to_have_value(topic)
    expect(form.get_by_label("Level")).to_have_value("mid")
    form.get_by_label("Kind").select_option(answerable_kind(topic))
    form.get_by_label("Questions").fill("1")
    form.get_by_role("button", name="Start practice").click()
    runner = page.get_by_test_id("runner")
    expect(runner).to_have_attribute("data-question-id", re.compile(r"\d+"))
    answer_correctly(page, Question.objects.get(pk=int(runner.get_attribute("data-question-id"))))

    page.goto(f"{site.url}/plan")
    today = page.get_by_test_id("plan-today")
    expect(today).not_to_contain_text(f"“{chapter_title}”")
    if second_title:
        expect(today.get_by_role("link", name=re.compile("^Read “")).first).to_contain_text(second_title)
    expect(page.get_by_test_id("readiness-overall")).not_to_have_text(readiness_before)
    expect(page.get_by_test_id("plan-calendar").locator("li").nth(1)).not_to_have_text(day_two_before)
    shot(page, f"study-plan-after-day-1-{kind}")


def answerable_kind(topic: str) -> str:
    """A kind of question the scripted answers cover that the topic has at the mid level."""
    kinds = set(Question.objects.published().filter(topics__slug=topic, level="mid").values_list("kind", flat=True))
    return next(kind for kind in ("single_choice", "numeric", "multiple_choice", "open") if kind in kinds)
