"""Flashcards deck tree: add everything, read the counts per part and chapter, collapse a part (remembered after a
reload), then study one chapter's subtree."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _first_chapter_with_cards():
    from apps.flashcards.models import Deck

    for deck in Deck.objects.filter(kind="chapter").select_related("parent").order_by("order"):
        if deck.cards.filter(retired=False).exists():
            return deck
    raise AssertionError("no chapter deck has cards")


def test_deck_tree_counts_collapse_and_study_a_chapter(site, desktop):
    page, _ = desktop
    sign_up(page, site.url, "treefan")
    page.goto(f"{site.url}/flashcards")
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added")

    chapter = _first_chapter_with_cards()
    part = chapter.parent
    chapter_row = page.get_by_test_id(f"deck-{chapter.slug}")
    expect(chapter_row).to_be_visible()
    expect(chapter_row).to_have_attribute("data-depth", "2")
    expect(page.get_by_test_id(f"deck-{part.slug}")).to_have_attribute("data-depth", "1")
    new_count = int(chapter_row.locator(".count-new").inner_text())
    assert new_count > 0
    shot(page, "flashcards-deck-tree")

    page.get_by_role("button", name=f"Collapse {part.title}", exact=True).click()
    expect(chapter_row).to_have_count(0)
    page.reload()
    expect(page.get_by_test_id(f"deck-{part.slug}")).to_be_visible()
    expect(page.get_by_test_id(f"deck-{chapter.slug}")).to_have_count(0)
    page.get_by_role("button", name=f"Expand {part.title}", exact=True).click()
    expect(page.get_by_test_id(f"deck-{chapter.slug}")).to_be_visible()

    page.get_by_role("link", name=f"Study {chapter.title}", exact=True).click()
    expect(page).to_have_url(re.compile(rf"/flashcards/review\?deck={chapter.slug}$"))
    expect(page.get_by_test_id("queue-progress")).to_contain_text(f"{new_count} new")
    expect(page.get_by_test_id("flashcard")).to_be_visible()


def test_deck_tree_on_a_phone(site, phone):
    page, _ = phone
    sign_up(page, site.url, "treephone")
    page.goto(f"{site.url}/flashcards")
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added")
    expect(page.get_by_test_id("deck-all")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1, width
