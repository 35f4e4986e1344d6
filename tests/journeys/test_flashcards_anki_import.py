"""Moving from Anki: a learner uploads their own package (written by the official anki library) in the settings,
finds its cards with their history in the card browser, and a second upload of the same file adds nothing."""

import pytest
from playwright.sync_api import expect

from tests.flashcards.test_anki_import import build_package
from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_import_an_anki_package_and_browse_its_cards(site, desktop, tmp_path):
    from apps.flashcards.models import ReviewLog, UserCard

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
