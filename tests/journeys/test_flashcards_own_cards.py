"""A learner writes a cloze card into a chapter deck, studies it, edits it during review (a second deletion number
makes a second card), and finds it in the card
browser marked as theirs."""

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_write_a_cloze_card_study_it_edit_it_and_browse_it(site, desktop):
    from apps.flashcards.models import Card, Deck, UserCard

    page, watch = desktop
    sign_up(page, site.url, "writer")
    chapter = Deck.objects.filter(kind="chapter").order_by("order", "slug").first()
    page.goto(f"{site.url}/flashcards/add")
    page.get_by_label("Cloze").check()
    page.get_by_label("Text (mark deletions {{c1::answer}}) (Markdown)").fill("PagedAttention keeps the KV cache in blocks.")
    page.get_by_label("Deck").select_option(chapter.slug)
    watch.expect_status(400, r"/api/v1/flashcards/own/$")  # a cloze without a deletion is refused, by field
    page.get_by_role("button", name="Add card").click()
    expect(page.get_by_role("alert")).to_contain_text("needs at least one deletion")

    page.get_by_label("Text (mark deletions {{c1::answer}}) (Markdown)").fill(
        "PagedAttention keeps the KV cache in {{c1::fixed-size blocks}}.")
    page.get_by_role("button", name="Add card").click()
    expect(page.get_by_test_id("own-card-preview")).to_contain_text("PagedAttention keeps the KV cache in […].")
    card = Card.objects.get(owner__username="writer")
    assert set(card.decks.values_list("slug", flat=True)) >= {chapter.slug, "all"}
    assert UserCard.objects.filter(user__username="writer").count() == 1

    page.goto(f"{site.url}/flashcards/review?deck={chapter.slug}")
    expect(page.get_by_test_id("card-front")).to_contain_text("in […].")
    page.keyboard.press("e")
    page.get_by_label("Text (mark deletions {{c1::answer}}) (Markdown)").fill(
        "PagedAttention keeps the KV cache in {{c1::fixed-size blocks}} of {{c2::16::tokens}} tokens by default.")
    page.get_by_role("button", name="Save card").click()
    expect(page.get_by_role("status")).to_have_text("Card saved.")
    # One card per deletion number, as Anki makes them: this one blanks c1 and shows c2's answer.
    expect(page.get_by_test_id("card-front")).to_contain_text("in […] of 16 tokens by default.")
    page.keyboard.press("Space")
    expect(page.get_by_test_id("card-back").locator("strong")).to_have_text(["fixed-size blocks"])
    page.keyboard.press("3")
    expect(page.get_by_test_id("queue-progress")).to_contain_text("Reviewed 1")
    assert UserCard.objects.get(user__username="writer", card=card).reps == 1
    # The edit added c2's card, new in the same deck: it blanks c2 and shows c1's answer.
    expect(page.get_by_test_id("card-front")).to_contain_text("in fixed-size blocks of [tokens] tokens by default.")
    assert UserCard.objects.filter(user__username="writer").count() == 2

    page.get_by_role("link", name="Browse", exact=True).click()
    page.get_by_label("Text").fill("PagedAttention keeps")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_test_id(f"browse-row-{card.pk}")).to_contain_text("yours")
    shot(page, "flashcards-own-card")
