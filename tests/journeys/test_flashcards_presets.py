"""Deck option presets: a learner makes a preset in the settings, chooses it for a chapter in the deck tree, and
the chapter's counts and its review queue follow the preset's daily limit; the optimizer says when there are too
few reviews to fit the preset's parameters."""

import pytest
from django.db.models import Count
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_preset_made_in_settings_limits_a_chapter_in_the_deck_tree_and_its_queue(site, desktop):
    from apps.flashcards.models import Deck, DeckPresetAssignment

    page, watch = desktop
    sign_up(page, site.url, "presetfan")
    page.goto(f"{site.url}/flashcards/settings")
    new = page.get_by_test_id("preset-new")
    new.get_by_label("Name").fill("Interview week")
    new.get_by_label("New cards/day").fill("3")
    new.get_by_label("Learning steps (min)", exact=True).fill("5 30")
    new.get_by_role("button", name="Add preset").click()
    preset = page.get_by_test_id("preset-Interview week")
    expect(preset.get_by_label("New cards/day")).to_have_value("3")
    expect(preset).to_contain_text("none yet")

    watch.expect_status(400, r"/api/v1/flashcards/optimize/$")  # too few reviews: the answer names why
    preset.get_by_role("button", name="Optimize Interview week").click()
    expect(preset.get_by_role("alert")).to_contain_text("Not enough reviews to optimize: 0 (at least 400)")

    page.get_by_role("link", name="Decks", exact=True).click()
    page.get_by_role("button", name="Add All cards").click()
    expect(page.get_by_role("status")).to_contain_text("Added")
    chapter = (Deck.objects.filter(kind="chapter").select_related("parent").annotate(n=Count("cards")).filter(n__gte=5)
               .order_by("order", "slug").first())
    page.get_by_role("button", name=f"Expand {chapter.parent.title}", exact=True).click()  # the tree opens on parts
    row = page.get_by_test_id(f"deck-{chapter.slug}")
    expect(row.locator(".count-new")).not_to_have_text("3")  # the Default's 20 a day
    row.get_by_label(f"Options preset for {chapter.title}").select_option(label="Interview week")
    expect(page.get_by_role("status")).to_contain_text("uses the preset “Interview week”")
    expect(row.locator(".count-new")).to_have_text("3")
    assert DeckPresetAssignment.objects.get(user__username="presetfan").deck == chapter

    row.get_by_role("link", name=f"Study {chapter.title}").click()
    expect(page.get_by_test_id("queue-progress")).to_contain_text("3 new")
    shot(page, "flashcards-presets")
