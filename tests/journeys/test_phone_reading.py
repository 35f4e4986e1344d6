"""Reading on a phone (390 px): tables scroll inside their own box, paragraphs fit, the header is one short row
with a Menu button; a skip link leads past the header."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_chapter_with_wide_tables_fits_a_phone(site, phone):
    from apps.courses.models import Chapter

    page, _ = phone
    chapter = Chapter.objects.get(slug="tokens-and-tokenization")
    assert "<table" in chapter.body_html
    page.goto(f"{site.url}/learn/{chapter.slug}")
    expect(page.get_by_role("heading", level=1)).to_have_text(chapter.title)

    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    paragraph = page.get_by_test_id("chapter-body").locator("p").first
    assert paragraph.bounding_box()["x"] + paragraph.bounding_box()["width"] <= 390
    table = page.get_by_test_id("chapter-body").locator("table").first
    table.evaluate("element => element.scrollIntoView({block: 'center'})")
    box = table.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert table.evaluate("element => element.scrollWidth > element.clientWidth"), "the wide table scrolls in its box"
    shot(page, "phone-reading-table")

    # The header is one short row; the navigation opens from the Menu button and closes after choosing.
    header = page.get_by_role("banner")
    assert header.bounding_box()["height"] <= 70
    nav = page.get_by_role("navigation", name="Main")
    expect(nav).to_be_hidden()
    page.get_by_role("button", name="Menu").tap()
    expect(nav).to_be_visible()
    shot(page, "phone-menu-open")
    nav.get_by_role("link", name="Glossary", exact=True).tap()
    expect(page).to_have_url(re.compile("/glossary$"))
    expect(nav).to_be_hidden()


def test_skip_link_is_the_first_stop(site, desktop):
    page, _ = desktop
    page.goto(f"{site.url}/learn")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
