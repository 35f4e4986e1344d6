"""From a chapter, "practise this chapter": every question of the session is from that chapter."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.practice import answer_correctly

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHAPTER = "tokens-and-tokenization"


def test_practise_this_chapter_asks_only_its_questions(site, desktop):
    from apps.courses.models import Chapter
    from apps.quiz.models import Question

    page, _ = desktop
    chapter = Chapter.objects.get(slug=CHAPTER)
    in_chapter = set(Question.objects.filter(chapters=chapter, status="published").values_list("id", flat=True))
    assert len(in_chapter) >= 3

    page.goto(f"{site.url}/learn/{CHAPTER}")
    page.get_by_role("link", name="practise this chapter").click()
    expect(page.get_by_test_id("chapter-filter")).to_contain_text(chapter.title)
    page.get_by_role("button", name="Start practice").click()

    runner = page.get_by_test_id("runner")
    seen = []
    for _ in range(len(in_chapter)):
        expect(runner).to_have_attribute("data-question-id", re.compile(r"\d+"))
        question_id = int(runner.get_attribute("data-question-id"))
        assert question_id in in_chapter, f"question {question_id} is not from {CHAPTER}"
        assert question_id not in seen
        seen.append(question_id)
        expect(page.get_by_test_id("question-chapters")).to_contain_text(chapter.title)
        answer_correctly(page, Question.objects.get(pk=question_id))
        page.locator("button.primary", has_text=re.compile("Next question|See summary")).click()
    expect(page).to_have_url(re.compile(r"/summary$"))
    assert set(seen) == in_chapter
