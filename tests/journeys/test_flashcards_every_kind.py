"""Flashcards: review one card of every kind by keyboard (each shows what is needed to answer, and its key), undo,
stats and export."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION_KINDS = ["multiple_choice", "single_choice", "ordering", "categorize", "matching", "numeric", "open"]
# Kinds whose answer key is loaded while the front shows. A numeric card's key waits for a reveal without a checked
# answer (a check's verdict carries its explanation), so only there may "Loading the answer key…" show for a moment.
KEY_BEFORE_REVEAL = {"multiple_choice", "single_choice", "ordering", "categorize", "matching"}

# Records the kind of every card whose back ever showed "Loading the answer key…", however briefly.
WATCH_KEY_LOADING = """
window.keyLoadingKinds = [];
new MutationObserver(() => {
  const busy = document.querySelector('[data-testid="card-back"] [aria-busy="true"]');
  const kind = busy?.closest("[data-kind]")?.getAttribute("data-kind");
  if (kind && !window.keyLoadingKinds.includes(kind)) window.keyLoadingKinds.push(kind);
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def _collection(username: str) -> list[tuple[str, object]]:
    """One card of every kind in this learner's collection, due in this order."""
    from django.contrib.auth import get_user_model

    from apps.core.models import Status
    from apps.flashcards.models import Card, SourceType, UserCard
    from apps.glossary.models import Term
    from apps.quiz.models import NumberToMemorize, Question

    user = get_user_model().objects.get(username=username)
    picked: list[tuple[str, object, Card]] = []
    for kind in QUESTION_KINDS:
        question = Question.objects.filter(kind=kind, status=Status.PUBLISHED).order_by("id").first()
        picked.append((kind, question, Card.objects.get(source_type=SourceType.QUESTION, source_id=question.pk)))
    term = Term.objects.filter(status=Status.PUBLISHED).order_by("id").first()
    picked.append(("term", term, Card.objects.get(source_type=SourceType.TERM, source_id=term.pk)))
    number = NumberToMemorize.objects.filter(status=Status.PUBLISHED).order_by("id").first()
    picked.append(("number", number, Card.objects.get(source_type=SourceType.NUMBER, source_id=number.pk)))
    start = timezone.now() - timedelta(hours=1)
    for index, (_, _, card) in enumerate(picked):
        UserCard.objects.create(user=user, card=card, due=start + timedelta(seconds=index), added_at=start)
    return [(kind, source) for kind, source, _ in picked]


def _check_front_and_back(page, kind: str, source) -> None:
    front = page.get_by_test_id("card-front")
    back = page.get_by_test_id("card-back")
    key = getattr(source, "key", {})
    if kind in ("single_choice", "multiple_choice"):
        for option in key["options"]:
            expect(front.get_by_test_id("card-choices")).to_contain_text(option["text"])
    elif kind == "ordering":
        for item in key["items"]:
            expect(front.get_by_test_id("card-choices")).to_contain_text(item)
    elif kind == "categorize":
        for item in key["items"]:
            expect(front.get_by_test_id("card-choices")).to_contain_text(item["text"])
        for name in key["bins"]:
            expect(front.get_by_test_id("card-choices")).to_contain_text(name)
    elif kind == "matching":
        for pair in key["pairs"]:
            expect(front.get_by_test_id("card-choices")).to_contain_text(pair["left"])
            expect(front.get_by_test_id("card-choices")).to_contain_text(pair["right"])
    elif kind == "numeric":
        expect(front.get_by_test_id("card-choices")).to_contain_text(key["numeric"]["unit"])
    expect(back).to_have_count(0)
    if kind in KEY_BEFORE_REVEAL:  # the key is fetched with the card, so the back shows at once
        expect(page.get_by_test_id("flashcard")).to_have_attribute("data-answer-key", "ready")

    page.keyboard.press("Space")
    expect(back).to_be_visible()
    answer_key = back.get_by_test_id("answer-key")
    if kind in ("single_choice", "multiple_choice"):
        right = [option["text"] for option in key["options"] if option["correct"]]
        expect(answer_key.locator("li.key-right")).to_have_count(len(right))
        for text in right:
            expect(answer_key.locator("li.key-right", has_text=text)).to_have_count(1)
    elif kind == "ordering":
        expect(answer_key.locator("li")).to_have_text(key["items"])
    elif kind == "categorize":
        for item in key["items"]:
            expect(answer_key.locator("div", has=page.locator("dt", has_text=item["bin"])).locator("dd", has_text=item["text"])).to_have_count(1)
    elif kind == "matching":
        expect(answer_key.locator("li")).to_have_text([f"{p['left']} → {p['right']}" for p in key["pairs"]])
    elif kind == "numeric":
        expect(answer_key).to_contain_text(f"{key['numeric']['value']:g} {key['numeric']['unit']}")
    else:
        expect(answer_key).to_have_count(0)
        expect(back).not_to_be_empty()


def test_review_one_card_of_every_kind_by_keyboard_then_undo_stats_and_export(site, desktop, eager):
    page, _ = desktop
    sign_up(page, site.url, "cardfan")
    cards = _collection("cardfan")

    page.add_init_script(WATCH_KEY_LOADING)
    page.goto(f"{site.url}/flashcards/review")
    for done, (kind, source) in enumerate(cards, start=1):
        expected_kind = kind if kind in QUESTION_KINDS else {"term": "term", "number": "number"}[kind]
        expect(page.get_by_test_id("flashcard")).to_have_attribute("data-kind", expected_kind)
        _check_front_and_back(page, kind, source)
        if kind == "multiple_choice":
            shot(page, "flashcards-multiple-choice-back")
        page.keyboard.press("4")  # Easy: out of today's queue (Good would bring it back within the learn-ahead window)
        expect(page.get_by_test_id("queue-progress")).to_contain_text(f"Reviewed {done}")
    expect(page.get_by_test_id("done-for-today")).to_be_visible()
    assert set(page.evaluate("window.keyLoadingKinds")) <= {"numeric"}  # no other back waited for its key

    # Undo brings the last card back.
    page.keyboard.press("z")
    expect(page.get_by_test_id("queue-progress")).to_contain_text(f"Reviewed {len(cards) - 1}")
    expect(page.get_by_test_id("flashcard")).to_have_attribute("data-kind", "number")

    page.get_by_role("link", name="Stats").click()
    expect(page.get_by_test_id("stats-summary")).to_contain_text(f"{len(cards) - 1} reviews in the last year")

    # The export is a job (run by the server process itself here, `eager`): started, then downloaded once written.
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("button", name="Export JSON").click()
    expect(page.get_by_test_id("export-status")).to_contain_text(f"{len(cards)} cards ready")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download flashcards.json").click()
    assert download.value.suggested_filename == "flashcards.json"
    exported = json.loads(open(download.value.path()).read())
    assert len(exported["cards"]) == len(cards)
    shot(page, "flashcards-export-ready")
