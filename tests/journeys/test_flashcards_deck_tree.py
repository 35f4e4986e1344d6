"""Flashcards deck tree: it opens on the top-level decks (All cards and its parts, the topics closed) with each part's
counts; expanding a part shows its chapters and is remembered after a reload; every deck reads as words, never a
slug ('Api'); then the learner studies one chapter's subtree."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Slug-cased forms of words the field writes otherwise: 'Api' for API, 'Kv' for KV, 'Vllm' for vLLM.
SLUG_CASED = re.compile(r"\b(Api|Kv|Gpu|Gpus|Vllm|Moe|Lora|Ttft|Slo|Slos|Nccl|Sglang|Flashattention|Littles)\b")


def _first_chapter_with_cards():
    from apps.flashcards.models import Deck

    for deck in Deck.objects.filter(kind="chapter").select_related("parent").order_by("order"):
        if deck.cards.filter(retired=False).exists():
            return deck
    raise AssertionError("no chapter deck has cards")


def _opens_collapsed(page) -> None:
    from apps.flashcards.models import Deck

    expect(page.get_by_test_id("deck-all")).to_be_visible()
    parts = Deck.objects.filter(kind="part").count()
    # All cards, its parts and the closed Topics group; no chapter and no topic deck.
    expect(page.get_by_test_id("deck-table").locator("tbody tr")).to_have_count(1 + parts + 1)
    expect(page.locator("tr[data-depth='2']")).to_have_count(0)
    expect(page.get_by_role("button", name="Expand Topics")).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_role("button", name="Collapse All cards")).to_have_attribute("aria-expanded", "true")


def test_deck_tree_opens_collapsed_expands_a_part_remembers_it_and_studies_a_chapter(site, desktop):
    page, _ = desktop
    sign_up(page, site.url, "treefan")
    page.goto(f"{site.url}/flashcards")
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added")
    _opens_collapsed(page)
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 2500, height
    shot(page, "flashcards-deck-tree-collapsed")

    chapter = _first_chapter_with_cards()
    part = chapter.parent
    part_row = page.get_by_test_id(f"deck-{part.slug}")
    expect(part_row).to_have_attribute("data-depth", "1")
    # A closed part shows its whole subtree's counts.
    assert int(part_row.locator(".count-new").inner_text()) > 0
    chapter_row = page.get_by_test_id(f"deck-{chapter.slug}")
    expect(chapter_row).to_have_count(0)

    # Keyboard: focus the part's toggle and press Enter.
    toggle = page.get_by_role("button", name=f"Expand {part.title}", exact=True)
    toggle.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name=f"Collapse {part.title}", exact=True)).to_have_attribute("aria-expanded", "true")
    expect(chapter_row).to_be_visible()
    expect(chapter_row).to_have_attribute("data-depth", "2")
    new_count = int(chapter_row.locator(".count-new").inner_text())
    assert new_count > 0
    shot(page, "flashcards-deck-tree-part-open")

    page.reload()
    expect(page.get_by_test_id(f"deck-{chapter.slug}")).to_be_visible()
    expect(page.get_by_role("button", name="Expand Topics")).to_be_visible()

    page.get_by_role("button", name="Expand Topics").click()
    expect(page.get_by_test_id("deck-topic-api")).to_contain_text("API")
    titles = page.get_by_test_id("deck-table").inner_text()
    assert not SLUG_CASED.search(titles), SLUG_CASED.search(titles)
    page.get_by_role("button", name="Collapse Topics").click()
    page.get_by_role("button", name=f"Collapse {part.title}", exact=True).click()
    expect(page.get_by_test_id(f"deck-{chapter.slug}")).to_have_count(0)
    page.reload()
    _opens_collapsed(page)

    page.get_by_role("button", name=f"Expand {part.title}", exact=True).click()
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
    _opens_collapsed(page)
    chapter = _first_chapter_with_cards()
    part = chapter.parent
    page.get_by_role("button", name=f"Expand {part.title}", exact=True).tap()
    expect(page.get_by_test_id(f"deck-{chapter.slug}")).to_be_visible()
    toggle = page.get_by_role("button", name=f"Collapse {part.title}", exact=True).bounding_box()
    assert toggle["height"] >= 28 and toggle["width"] >= 28, toggle
    page.reload()
    expect(page.get_by_test_id(f"deck-{chapter.slug}")).to_be_visible()
    page.get_by_role("button", name="Expand Topics").tap()
    expect(page.get_by_test_id("deck-topic-kv-cache")).to_contain_text("KV cache")
    titles = page.get_by_test_id("deck-table").inner_text()
    assert not SLUG_CASED.search(titles), SLUG_CASED.search(titles)
    page.get_by_role("button", name="Collapse Topics").tap()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1, width
    shot(page, "flashcards-deck-tree-phone")
