import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def content(live_server):
    from django.core.management import call_command

    call_command("load_content", verbosity=0)
    return live_server


def test_read_mark_understood_navigate_search_and_keep_progress_on_sign_up(content, page):
    from apps.courses.models import Chapter, ChapterProgress

    chapter = Chapter.objects.filter(body_html__contains='class="glossary-term"').order_by("part__order", "order").first()
    following = Chapter.objects.get(slug=page_next_slug(chapter))
    page.goto(f"{content.url}/learn/{chapter.slug}")
    expect(page.get_by_role("heading", level=1)).to_have_text(chapter.title)

    term = page.locator(".chapter-body .glossary-term").first
    definition = chapter.glossary_terms.model.objects.get(slug=term.get_attribute("data-term")).definition
    term.hover()
    expect(page.get_by_role("tooltip")).to_contain_text(definition)

    page.get_by_role("button", name="Mark as understood").click()
    expect(page.get_by_test_id("chapter-status")).to_contain_text("understood")

    page.keyboard.press("]")
    expect(page).to_have_url(re.compile(f"/learn/{following.slug}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(following.title)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Learn", exact=True).click()
    part_total = chapter.part.chapters.count()
    expect(page.get_by_test_id(f"part-progress-{chapter.part.slug}")).to_have_text(f"1 / {part_total} understood")

    # The search palette: Ctrl-K, type (with a typo), arrows to the chapter, Enter.
    page.keyboard.press("Control+k")
    box = page.get_by_role("combobox", name="Search chapters, terms and questions")
    expect(box).to_be_focused()
    box.fill("kv cahce")
    options = page.get_by_role("option")
    expect(options.first).to_be_visible()
    for _ in range(12):
        selected = page.locator('[role="option"][aria-selected="true"]')
        if selected.inner_text().lower().startswith("chapter") and "KV cache" in selected.inner_text():
            break
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("/learn/kv-cache-sizing$"))
    expect(page.get_by_role("dialog")).to_have_count(0)

    # Signing up merges what this browser marked understood into the new account.
    page.goto(f"{content.url}/signup")
    page.get_by_label("Username").fill("reader1")
    page.get_by_label("Password").fill("correct-horse-battery-9")
    page.get_by_role("button", name="Create account").click()
    page.get_by_test_id("signed-in-as").wait_for()
    expect(page.get_by_test_id("account-link")).to_contain_text("reader1")
    page.goto(f"{content.url}/learn/{chapter.slug}")
    expect(page.get_by_test_id("chapter-status")).to_contain_text("understood")
    statuses = dict(ChapterProgress.objects.filter(user__username="reader1").values_list("chapter__slug", "status"))
    assert statuses == {chapter.slug: "understood"}


def page_next_slug(chapter) -> str:
    from apps.courses.models import Chapter

    ordered = list(Chapter.objects.published().order_by("part__order", "order").values_list("slug", flat=True))
    return ordered[ordered.index(chapter.slug) + 1]
