"""Search with a typo ("fragmentaton"): the palette says what it searched for instead, lists chapters, glossary terms and
questions, and each kind of result opens a page that shows its content — on a desk and on a phone."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TYPO = "fragmentaton"


def _search(page, kind: str):
    """Opens the palette, types the typo, and returns the first result of `kind` and its title."""
    if page.viewport_size["width"] < 600:
        page.get_by_role("button", name=re.compile("^Search")).click()
    else:
        page.keyboard.press("Control+k")
    box = page.get_by_role("combobox", name="Search chapters, terms and questions")
    box.fill(TYPO)
    expect(page.get_by_text("Showing results for “fragmentation”")).to_be_visible()
    option = page.get_by_role("option").filter(has=page.locator(".kind", has_text=re.compile(f"^{kind}$"))).first
    expect(option).to_be_visible()
    return option, option.locator("strong").inner_text()


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_search_with_a_typo_opens_a_chapter_a_term_and_a_question(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(f"{site.url}/learn")
    expect(page.get_by_role("heading", level=1)).to_be_visible()

    # Every kind of document answers the corrected query.
    _search(page, "chapter")
    kinds = {text.strip().lower() for text in page.locator("[role=option] .kind").all_text_contents()}
    assert {"chapter", "term", "question"} <= kinds, kinds
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name="Search")).to_have_count(0)

    option, title = _search(page, "chapter")
    option.click()
    expect(page).to_have_url(re.compile(r"/learn/[a-z0-9-]+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(title)
    expect(page.locator("article p").first).to_be_visible()
    shot(page, f"search-typo-chapter-{kind}")

    option, title = _search(page, "term")
    option.click()
    expect(page).to_have_url(re.compile(r"/glossary"))
    expect(page.get_by_role("heading", name=title, exact=True).first).to_be_visible()
    shot(page, f"search-typo-term-{kind}")

    option, title = _search(page, "question")
    option.click()
    expect(page).to_have_url(re.compile(r"/practice/questions/\d+$"))
    prompt = page.get_by_test_id("question-page").locator(".question-prompt")
    expect(prompt).to_contain_text(title.rstrip("…").strip()[:40])
    expect(page.get_by_test_id("question-chapters")).to_be_visible()
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
