"""The smaller things a learner trips over: every page names its tab; a signed-out sweep attempt offers a way to sign
in (and back); the request walk's prompt box empties when cleared and keeps the caret where you type."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SITE = " · LLM-serving kit"


def test_every_page_names_its_tab(site, desktop):
    from apps.courses.models import Chapter

    page, _ = desktop
    chapter = Chapter.objects.published().order_by("part__order", "order").first()
    expected = {
        "/learn": "Learn" + SITE,
        "/learn/map": "Concept map · Learn" + SITE,
        f"/learn/{chapter.slug}": chapter.title + SITE,
        "/glossary": "Glossary" + SITE,
        "/practice": "Practice" + SITE,
        "/practice/interview": "Interview mode · Practice" + SITE,
        "/practice/diagnosis": "Diagnosis game · Practice" + SITE,
        "/flashcards": "Flashcards" + SITE,
        "/lab": "Inference Lab" + SITE,
        "/lab/kv-cache": "KV cache · Lab" + SITE,
        "/lab/sweeps": "Sweeps · Lab" + SITE,
        "/login": "Log in" + SITE,
        "/signup": "Sign up" + SITE,
    }
    page.goto(site.url)
    expect(page).to_have_title(re.compile("^LLM-serving interview kit"))
    for path, title in expected.items():
        page.goto(f"{site.url}{path}")
        expect(page).to_have_title(title)
    # Moving inside the app (no reload) renames the tab too.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Practice").click()
    expect(page).to_have_title("Practice" + SITE)
    page.get_by_role("link", name="LLM-serving kit").click()
    expect(page).to_have_title(re.compile("^LLM-serving interview kit"))


def test_signed_out_sweep_attempt_offers_sign_in_and_comes_back(site, desktop):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("sweeper", password="correct-horse-battery-9")
    page, _ = desktop
    page.goto(f"{site.url}/lab/sweeps")
    expect(page.get_by_role("heading", name="Configuration sweep")).to_be_visible()
    page.get_by_role("button", name="Run sweep").click()
    notice = page.get_by_test_id("sweep-sign-in")
    expect(notice).to_have_attribute("role", "alert")
    expect(notice).to_contain_text("under your account")
    expect(page.get_by_text("Authentication credentials were not provided")).to_have_count(0)
    shot(page, "sweep-signed-out")

    notice.get_by_role("link", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/login\?next=%2Flab%2Fsweeps$|/login\?next=/lab/sweeps$"))
    page.get_by_label("Username").fill("sweeper")
    page.get_by_label("Password").fill("correct-horse-battery-9")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile("/lab/sweeps$"))
    expect(page.get_by_role("heading", name="Configuration sweep")).to_be_visible()
    expect(page.get_by_test_id("sweep-sign-in")).to_have_count(0)


def test_request_walk_prompt_clears_and_keeps_the_caret(site, desktop):
    page, _ = desktop
    page.goto(f"{site.url}/lab/request-walk")
    prompt = page.get_by_label("Prompt")
    expect(prompt).to_have_value(re.compile("^Explain in two sentences"))
    prompt.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    expect(prompt).to_have_value("")
    page.wait_for_timeout(300)  # the URL catches up; the box must stay empty
    expect(prompt).to_have_value("")
    page.keyboard.type("Hello world")
    expect(prompt).to_have_value("Hello world")
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    page.keyboard.type("big ", delay=30)
    expect(prompt).to_have_value("Hello big world")
    expect(page).to_have_url(re.compile(r"prompt=Hello\+big\+world"))
    expect(page.get_by_test_id("walk-prompt-tokens")).to_be_visible()
