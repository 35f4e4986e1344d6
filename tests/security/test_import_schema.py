"""The flashcard import checks every field of the file (unknown fields refused, types and bounds enforced), reads it
as a stream, and changes nothing when any check fails."""

import json

import pytest
from django.utils import timezone

from apps.flashcards.models import Card, UserCard
from tests.flashcards.conftest import import_file

pytestmark = pytest.mark.django_db


def card_entry(card: Card, **changes) -> dict:
    now = timezone.now().isoformat()
    entry = {"source_type": card.source_type, "source_id": card.source_id, "added_at": now, "state": 0, "step": 0,
             "stability": None, "difficulty": None, "due": now, "last_review": None, "reps": 0, "lapses": 0,
             "suspended": False, "leech": False, "buried_until": None, "source_changed": False, "reviews": []}
    return {**entry, **changes}


def review(**changes) -> dict:
    now = timezone.now().isoformat()
    before = {"state": 0, "step": 0, "stability": None, "difficulty": None, "due": now, "last_review": None,
              "reps": 0, "lapses": 0, "suspended": False, "leech": False, "buried_until": None, "source_changed": False}
    return {"review_id": "6f1c8e2e-4a57-4a86-9d0e-1f2a3b4c5d6e", "rating": 3, "reviewed_at": now, "duration_ms": 10,
            "state_before": 0, "state_after": 1, "before": before, "after": {"state": 1}, **changes}


def post(client, cards, **header) -> dict:
    """The import job's final answer for a collection file holding ``cards``."""
    body = {"format": "llmkit-flashcards", "version": 1, "cards": cards, **header}
    status, job = import_file(client, body, "json")
    assert status == 202, job
    return job


def refused(job: dict) -> set[str]:
    """The fields a failed import job names; it imported nothing."""
    assert job["status"] == "failed" and job["result"] is None, job
    return set(job["error"]["fields"])


@pytest.fixture
def card(db):
    return Card.objects.create(source_type="question", source_id=424242, front="F", back="B", content_hash="x")


@pytest.mark.parametrize(("entry", "field"), [
    (lambda c: card_entry(c, colour="red"), "cards.0.colour"),
    (lambda c: card_entry(c, state=9), "cards.0.state"),
    (lambda c: card_entry(c, reps=True), "cards.0.reps"),
    (lambda c: card_entry(c, stability=-1), "cards.0.stability"),
    (lambda c: card_entry(c, due="yesterday"), "cards.0.due"),
    (lambda c: card_entry(c, source_type="video"), "cards.0.source_type"),
    (lambda c: card_entry(c, reviews=[review(rating=5)]), "cards.0.reviews.0.rating"),
    (lambda c: card_entry(c, reviews=[review(extra=1)]), "cards.0.reviews.0.extra"),
    (lambda c: card_entry(c, reviews=[review(review_id="nope")]), "cards.0.reviews.0.review_id"),
    (lambda c: card_entry(c, reviews=[review(after={"nested": {"deep": [1]}})]), "cards.0.reviews.0.after"),
    (lambda c: card_entry(c, reviews=[review(before={"state": 0})]), "cards.0.reviews.0.before.due"),
    (lambda c: "not an object", "cards.0"),
])
def test_every_field_is_checked_and_a_bad_file_changes_nothing(learner_client, card, entry, field):
    assert post(learner_client, [card_entry(card)])["status"] == "done"
    job = post(learner_client, [entry(card)])
    assert field in refused(job), job
    assert UserCard.objects.filter(card=card).count() == 1  # the earlier import is untouched


def test_unknown_top_level_field_and_wrong_format_are_named(learner_client, card):
    assert {"pad", "format"} <= refused(post(learner_client, [card_entry(card)], pad="x", format="other"))


def test_a_valid_file_with_reviews_imports(learner_client, card):
    job = post(learner_client, [card_entry(card, reviews=[review()])])
    assert job["status"] == "done" and job["result"] == {"cards": 1, "reviews": 1}, job


def test_truncated_json_fails_the_import_naming_the_file_not_a_server_error(learner_client, card):
    body = json.dumps({"format": "llmkit-flashcards", "version": 1, "cards": [card_entry(card)]})[:-20]
    status, job = import_file(learner_client, body.encode(), "json")
    assert status == 202 and "file" in refused(job), job  # an error on our side would name no field
    assert UserCard.objects.count() == 0
