"""Learners never see draft text: not in a practice session built before the question was unpublished, not through
the deck of an unpublished part, not by re-importing an export that holds the card of an unpublished question."""

import pytest
from django.utils import timezone

from apps.core.models import Status
from tests.flashcards.conftest import exported_json, import_file

pytestmark = pytest.mark.django_db
DRAFT_PROMPT = "DRAFT: not ready for learners"


def unpublish_and_edit(question):
    question.status = Status.DRAFT
    question.prompt = DRAFT_PROMPT
    question.save()


def test_a_session_drops_a_question_unpublished_after_it_was_built(owner, content):
    created = owner.post("/api/v1/practice/sessions/", {"mode": "practice", "size": 5}, format="json")
    assert created.status_code == 201, created.json()
    session_id = created.json()["id"]
    assert [q["id"] for q in created.json()["questions"]] == [content.question.id]
    unpublish_and_edit(content.question)

    detail = owner.get(f"/api/v1/practice/sessions/{session_id}/")
    assert detail.status_code == 200
    assert detail.json()["questions"] == []
    assert DRAFT_PROMPT not in detail.content.decode()
    answer = owner.post(f"/api/v1/practice/sessions/{session_id}/answers/",
                        {"question": content.question.id, "self_rating": "good"}, format="json")
    assert answer.status_code == 400 and "question" in answer.json()["fields"]
    assert DRAFT_PROMPT not in answer.content.decode()


def test_the_deck_of_an_unpublished_part_is_neither_listed_nor_addable(owner, content):
    deck = f"part-{content.part.slug}"
    assert deck in [d["slug"] for d in owner.get("/api/v1/flashcards/decks/").json()]
    content.part.status = Status.DRAFT
    content.part.save()
    assert deck not in [d["slug"] for d in owner.get("/api/v1/flashcards/decks/").json()]
    assert owner.post(f"/api/v1/flashcards/decks/{deck}/add/").status_code == 404


def test_reimporting_an_export_keeps_the_card_of_an_unpublished_question_suspended(
        owner, content, django_capture_on_commit_callbacks):
    from apps.flashcards.models import Card, SourceType, UserCard
    from apps.flashcards.services import deck_add

    deck_add(user=owner.user, slug=content.deck, now=timezone.now())
    body = exported_json(owner)
    card = Card.objects.get(source_type=SourceType.QUESTION, source_id=content.question.id)
    mine = [e for e in body["cards"] if (e["source_type"], e["source_id"]) == ("question", content.question.id)]
    assert len(mine) == 1 and not mine[0]["suspended"]

    with django_capture_on_commit_callbacks(execute=True):
        unpublish_and_edit(content.question)  # retires the card on commit: suspended in every collection
    assert UserCard.objects.get(user=owner.user, card=card).suspended

    status, restored = import_file(owner, body, "json")
    assert status == 202 and restored["status"] == "done", restored
    assert UserCard.objects.get(user=owner.user, card=card).suspended
    due = owner.get("/api/v1/flashcards/due/").json()
    assert card.id not in [c["card_id"] for c in due["cards"]]
    assert DRAFT_PROMPT not in str(due)
