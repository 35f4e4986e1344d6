"""Moving from Anki: a learner uploads their own package (written by the official anki library) in the settings,
finds its cards with their history in the card browser, browses them by their Anki deck (a deck with its subdecks,
as Anki's deck: search) and sees each card's Anki deck on its row and in its details, on a phone too, and a second
upload of the same file adds nothing; a package's images arrive as the learner's card images, shown on the card,
and the files left out are listed with why. The upload is an import job the page polls (run here by the server
process itself, `eager`; tests/flashcards/test_import_jobs_celery.py runs one on a real worker)."""

import re

import pytest
from playwright.sync_api import expect

from tests.flashcards.test_anki_import import build_package
from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_import_an_anki_package_and_browse_its_cards(site, desktop, open_page, tmp_path, eager):
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
    expect(page.get_by_test_id("row-anki-deck")).to_have_text(["Interview::Serving::GPU"])
    fresh = UserCard.objects.get(user__username="ankifan", card__front__startswith="TTFT")
    page.get_by_role("button", name=f"Details of card {fresh.card_id}").click()
    expect(page.get_by_test_id("detail-anki-deck")).to_have_text("Anki deck: Interview::Serving::GPU")
    page.get_by_role("button", name="Close details").click()
    anki_deck.select_option("Interview")  # the deck and its subdecks
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_test_id("browse-count")).to_contain_text("4 cards")
    expect(page.get_by_test_id("row-anki-deck")).to_have_count(4)
    assert sorted(page.get_by_test_id("row-anki-deck").all_inner_texts()) == [
        "Interview", "Interview", "Interview", "Interview::Serving::GPU"]
    shot(page, "flashcards-browse-by-anki-deck")

    # On a phone: the deck name wraps inside its cell, so the row is no wider with it than without it (the table
    # scrolls sideways inside its own box, as it did before), and nothing runs past the screen's edge.
    phone, _ = open_page("phone", "anki-deck-on-a-phone")
    phone.goto(f"{site.url}/login")
    phone.get_by_label("Username").fill("ankifan")
    phone.get_by_label("Password").fill("correct-horse-battery-9")
    phone.get_by_role("button", name="Log in").click()
    phone.get_by_test_id("signed-in-as").wait_for()
    phone.goto(f"{site.url}/flashcards/browse")
    phone.get_by_label("Text").fill("TTFT")
    phone.get_by_role("button", name="Search", exact=True).click()
    row = phone.get_by_test_id(f"browse-row-{fresh.card_id}")
    expect(row.get_by_test_id("row-anki-deck")).to_have_text("Interview::Serving::GPU")
    fits = row.evaluate("""row => {
        const label = row.querySelector("[data-testid=row-anki-deck]"), cell = label.parentElement;
        const box = label.getBoundingClientRect(), inside = cell.getBoundingClientRect();
        const withDeck = row.getBoundingClientRect().width;
        label.style.display = "none";
        const withoutDeck = row.getBoundingClientRect().width;
        label.style.display = "";
        return {withDeck, withoutDeck, left: box.left - inside.left, right: inside.right - box.right,
                lines: Math.round(box.height / parseFloat(getComputedStyle(label).lineHeight)),
                page: document.documentElement.scrollWidth};
    }""")
    assert fits["withDeck"] <= fits["withoutDeck"] + 0.5 and fits["left"] >= 0 and fits["right"] >= 0, fits
    assert fits["lines"] >= 2 and fits["page"] <= 390 + 1, fits  # wrapped, where one line would widen the row
    phone.get_by_role("button", name=f"Details of card {fresh.card_id}").click()
    expect(phone.get_by_test_id("detail-anki-deck")).to_have_text("Anki deck: Interview::Serving::GPU")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    shot(phone, "flashcards-anki-deck-phone")


def test_an_anki_package_brings_the_images_its_cards_show(site, desktop, tmp_path, eager):
    from apps.flashcards.models import UserCard
    from tests.flashcards.test_anki_media import build_media_package

    path = tmp_path / "pictures.apkg"
    path.write_bytes(build_media_package(legacy=False))
    page, _ = desktop
    sign_up(page, site.url, "ankipictures")
    page.goto(f"{site.url}/flashcards/settings")
    page.get_by_label("Import from Anki").set_input_files(str(path))
    expect(page.get_by_test_id("anki-import-status")).to_have_text(
        "Imported 5 cards and 0 reviews from “pictures.apkg” into Pictures (5). 1 image added to your card images. "
        "4 media files left out (the cards keep their text):")
    left_out = page.get_by_test_id("anki-import-left-out").locator("li")
    expect(left_out).to_have_count(4)
    expect(left_out.filter(has_text="ping.mp3")).to_contain_text("Not an image")
    expect(left_out.filter(has_text="big.png")).to_contain_text("larger than 2 MB")

    page.get_by_role("link", name="Browse", exact=True).click()
    page.get_by_label("Text").fill("A dot")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_test_id("browse-count")).to_contain_text("1 card ")
    card = UserCard.objects.get(user__username="ankipictures", card__front__startswith="A dot")
    page.get_by_role("button", name=f"Details of card {card.card_id}").click()
    picture = page.get_by_test_id("card-detail").locator("img")
    expect(picture).to_have_attribute("src", re.compile(r"^/api/v1/flashcards/images/\d+/$"))
    page.wait_for_function("img => img.complete && img.naturalWidth === 3", arg=picture.element_handle())
    expect(page.get_by_test_id("detail-anki-deck")).to_have_text("Anki deck: Pictures")
    shot(page, "flashcards-anki-import-images")


def test_on_a_phone_the_page_says_how_to_study_in_both_the_kit_and_anki(site, phone):
    page, _ = phone
    sign_up(page, site.url, "ankiphone")
    page.goto(f"{site.url}/flashcards/settings")
    help_box = page.get_by_test_id("anki-round-trip-help")
    help_box.locator("summary").tap()
    expect(help_box).to_contain_text("delete the “LLM-serving interview kit” deck")
    expect(help_box).to_contain_text("nothing is added twice")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    shot(page, "flashcards-anki-round-trip-help-phone")
