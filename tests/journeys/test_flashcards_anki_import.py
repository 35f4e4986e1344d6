"""Moving from Anki: a learner uploads their own package (written by the official anki library) in the settings,
finds its cards with their history in the card browser, browses them by their Anki deck (a deck with its subdecks,
as Anki's deck: search), and a second upload of the same file adds nothing."""

import re

import pytest
from playwright.sync_api import expect

from tests.flashcards.test_anki_import import build_package
from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_import_an_anki_package_and_browse_its_cards(site, desktop, tmp_path):
    from apps.accounts.services import register_user
    from apps.flashcards.models import OwnNote, ReviewLog, UserCard
    from apps.flashcards.own_cards import own_card_create

    package = build_package(legacy=False)  # Anki's default export format
    path = tmp_path / "interview.apkg"
    path.write_bytes(package["bytes"])
    page, _ = desktop
    sign_up(page, site.url, "ankifan")
    page.goto(f"{site.url}/flashcards/settings")
    page.get_by_label("Import from Anki").set_input_files(str(path))
    expect(page.get_by_test_id("anki-import-status")).to_have_text(
        "Imported 4 cards and 2 reviews from “interview.apkg” into Interview (3), Interview::Serving::GPU (1).")
    assert UserCard.objects.filter(user__username="ankifan").count() == 4
    assert ReviewLog.objects.filter(user__username="ankifan").count() == 2

    page.get_by_label("Import from Anki").set_input_files([])
    page.get_by_label("Import from Anki").set_input_files(str(path))
    expect(page.get_by_test_id("anki-import-status")).to_contain_text("Imported 0 cards and 0 reviews")
    expect(page.get_by_test_id("anki-import-status")).to_contain_text("4 imported before")
    assert UserCard.objects.filter(user__username="ankifan").count() == 4

    page.get_by_role("link", name="Browse", exact=True).click()
    page.get_by_label("Text").fill("decode")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_test_id("browse-count")).to_contain_text("3 cards")  # the basic note and both cloze cards
    card = UserCard.objects.get(user__username="ankifan", state=2)
    page.get_by_role("button", name=f"Details of card {card.card_id}").click()
    expect(page.get_by_test_id("review-history")).to_contain_text("Easy")
    shot(page, "flashcards-anki-import")

    # By Anki deck: the learner's own decks only (another learner's import is never offered), each with its subdecks.
    other = register_user("otherankifan", "correct-horse-battery-9")
    theirs = own_card_create(user=other, kind="basic", front="Secret?", back="Yes", deck_slug="all",
                             now=card.due)
    OwnNote.objects.filter(pk=theirs.source_id).update(anki_deck="Secret::Interview")
    page.get_by_role("button", name="Close details").click()
    page.reload()
    page.get_by_label("Text").fill("")
    anki_deck = page.get_by_label("Anki deck")
    expect(anki_deck.locator("option")).to_have_count(4)
    assert [option.get_attribute("value") for option in anki_deck.locator("option").all()] == [
        "", "Interview", "Interview::Serving", "Interview::Serving::GPU"]
    expect(anki_deck.locator("option")).to_have_text(["any", "Interview (4)", "Serving (1)", "GPU (1)"])  # a tree
    anki_deck.select_option("Interview::Serving::GPU")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_test_id("browse-count")).to_contain_text("1 card ")
    expect(page.get_by_test_id("browse-table").locator("tbody tr")).to_have_text([re.compile("TTFT\\?")])
    anki_deck.select_option("Interview")  # the deck and its subdecks
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_test_id("browse-count")).to_contain_text("4 cards")
    shot(page, "flashcards-browse-by-anki-deck")
