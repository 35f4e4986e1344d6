"""First visit → start here → first chapter; sign-up lands on the start page; mark understood → progress → resume,
on this browser and, from the account's progress, on another one."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def ordered_chapters():
    from apps.courses.models import Chapter

    return list(Chapter.objects.published().filter(part__status="published").order_by("part__order", "order").select_related("part"))


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_first_visit_start_here_leads_to_a_first_chapter(site, open_page, kind):
    page, _ = open_page(kind)
    chapters = ordered_chapters()
    first = chapters[0]
    interview_first = next(c for c in chapters if c.part.slug == "interview-kit")

    page.goto(site.url)
    expect(page).to_have_title(re.compile("LLM-serving interview kit"))
    start = page.get_by_test_id("start-here")
    expect(start.get_by_role("heading", name="Start here")).to_be_visible()
    expect(page.get_by_test_id("resume")).to_have_count(0)
    for goal in ("An interview next week", "A job serving models", "Curiosity"):
        expect(start.get_by_role("heading", name=goal)).to_be_visible()
    expect(page.get_by_test_id("goal-interview").get_by_role("link", name=re.compile("Read"))).to_contain_text(interview_first.title)
    expect(page.get_by_test_id("goal-interview").get_by_role("link", name="Plan the days to your interview date")).to_have_attribute("href", "/plan")
    shot(page, f"start-here-{kind}")

    page.get_by_test_id("goal-curious").get_by_role("link", name=re.compile("Read")).click()
    expect(page).to_have_url(re.compile(f"/learn/{first.slug}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(first.title)
    expect(page).to_have_title(re.compile(re.escape(first.title)))


def test_sign_up_lands_on_the_start_page(site, desktop):
    page, _ = desktop
    sign_up(page, site.url, "newcomer")
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_test_id("signed-in-as")).to_contain_text("newcomer")
    expect(page.get_by_test_id("start-here")).to_be_visible()


def test_mark_understood_then_progress_then_resume(site, open_page):
    chapters = ordered_chapters()
    first, second = chapters[0], chapters[1]
    page, _ = open_page("desktop")
    sign_up(page, site.url, "returning")

    page.get_by_test_id("goal-curious").get_by_role("link", name=re.compile("Read")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(first.title)
    page.get_by_role("button", name="Mark as understood").click()
    expect(page.get_by_test_id("chapter-status")).to_contain_text("understood")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Learn", exact=True).click()
    expect(page.get_by_text(f"1 of {len(chapters)} chapters understood")).to_be_visible()

    page.get_by_role("link", name="LLM-serving kit").click()
    resume = page.get_by_test_id("resume")
    expect(resume).to_contain_text("Next up")
    expect(resume.get_by_role("link", name=second.title)).to_be_visible()
    expect(page.get_by_test_id("resume-progress")).to_contain_text(f"1 of {len(chapters)} chapters understood")

    # Open the next chapter and leave it half read: the start page says so.
    resume.get_by_role("link", name=second.title).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(second.title)
    page.go_back()
    expect(page.get_by_test_id("resume")).to_contain_text(f"You were reading {second.title}")

    # Another browser, signed in to the same account: the resume comes from the account's progress.
    other, _ = open_page("phone", "resume-on-another-browser")
    other.goto(f"{site.url}/login")
    other.get_by_label("Username").fill("returning")
    other.get_by_label("Password").fill("correct-horse-battery-9")
    other.get_by_role("button", name="Log in").click()
    expect(other).to_have_url(re.compile(r"/$"))
    expect(other.get_by_test_id("resume")).to_contain_text(f"Next up: {second.title}")
    other.get_by_test_id("resume").get_by_role("link", name=second.title).click()
    expect(other.get_by_role("heading", level=1)).to_have_text(second.title)
