"""Reading a chapter with glossary cards: hover, leave, keyboard, Escape, the link onward, and tap on a phone."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHAPTER = "tokens-and-tokenization"


def definition(slug: str) -> str:
    from apps.glossary.models import Term

    return Term.objects.get(slug=slug).definition


def test_hover_cards_open_close_and_lead_to_the_glossary(site, desktop):
    page, _ = desktop
    page.goto(f"{site.url}/learn/{CHAPTER}")
    body = page.get_by_test_id("chapter-body")
    token = body.locator('.glossary-term[data-term="token"]').first
    tokenizer = body.locator('.glossary-term[data-term="tokenizer"]').first
    prefill = body.locator('.glossary-term[data-term="prefill"]').first
    card = page.get_by_role("tooltip")

    # Hover "token": its card; move away: no card left covering the text.
    token.hover()
    expect(card).to_contain_text(definition("token"))
    page.mouse.move(5, 5)
    expect(card).to_have_count(0)

    # Every hover shows the right, non-empty definition; the chapter text is not re-rendered underneath.
    body.evaluate("element => { element.dataset.marker = 'same-node'; }")
    for term, slug in ((tokenizer, "tokenizer"), (prefill, "prefill"), (token, "token"), (prefill, "prefill")):
        term.hover()
        expect(card).to_have_attribute("data-term", slug)
        expect(card.locator("p")).to_have_text(definition(slug))
    shot(page, "read-desktop-card-open")
    expect(body).to_have_attribute("data-marker", "same-node")
    assert body.locator(".glossary-term[title]").count() == 0

    # Keyboard: focus opens, Escape closes.
    page.mouse.move(5, 5)
    expect(card).to_have_count(0)
    tokenizer.focus()
    expect(card).to_contain_text(definition("tokenizer"))
    expect(tokenizer).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    expect(card).to_have_count(0)
    expect(tokenizer).to_have_attribute("aria-expanded", "false")

    # Enter opens the card and moves to its link; the link leads to the term's glossary page.
    tokenizer.focus()
    page.keyboard.press("Enter")
    link = card.get_by_role("link", name=re.compile("in the glossary"))
    expect(link).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("/glossary/tokenizer$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Tokenizer")


def test_tap_opens_a_card_on_a_phone(site, phone):
    page, _ = phone
    page.goto(f"{site.url}/learn/{CHAPTER}")
    body = page.get_by_test_id("chapter-body")
    card = page.get_by_role("tooltip")
    prefill = body.locator('.glossary-term[data-term="prefill"]').first
    prefill.evaluate("element => element.scrollIntoView({block: 'center'})")
    prefill.tap()
    expect(card).to_contain_text(definition("prefill"))
    shot(page, "read-phone-card-open")
    box = card.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box

    # Tapping elsewhere in the text closes it; tapping another term opens that one.
    page.get_by_role("heading", level=1).tap()
    expect(card).to_have_count(0)
    token = body.locator('.glossary-term[data-term="token"]').first
    token.evaluate("element => element.scrollIntoView({block: 'center'})")
    token.tap()
    expect(card).to_have_attribute("data-term", "token")
    card.get_by_role("link", name=re.compile("in the glossary")).tap()
    expect(page).to_have_url(re.compile("/glossary/token$"))
