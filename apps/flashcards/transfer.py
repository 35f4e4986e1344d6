"""Export of a learner's collection (JSON, CSV, Anki .apkg) and import of a JSON export.

Formats:
- JSON: ``{"format": "llmkit-flashcards", "version": 1, "exported_at", "cards": [...]}``; each card holds its
  source (``source_type``, ``source_id``), front/back, every scheduling column and ``reviews`` (the full log with
  the before-state snapshots). Importing it restores the collection exactly.
- CSV: a zip with two files, ``cards.csv`` (one row per card with its state) and ``reviews.csv`` (one row per
  review, joined to cards by ``card_id``) — two plain tables open cleanly in any spreadsheet.
- apkg: an Anki package (genanki) with one Basic note per card, HTML front/back; Anki schedules them as new
  cards (an .apkg written without Anki's own collection cannot carry FSRS memory states).
"""

from __future__ import annotations

import csv
import io
import tempfile
import zipfile
from datetime import datetime
from pathlib import Path

import genanki
from django.db import transaction
from rest_framework.exceptions import ValidationError

from apps.flashcards.models import Card, ReviewLog, UserCard
from apps.flashcards.services import SNAPSHOT_FIELDS, iso, restore, snapshot

FORMAT_NAME = "llmkit-flashcards"
FORMAT_VERSION = 1
REVIEW_FIELDS = ("review_id", "rating", "reviewed_at", "duration_ms", "state_before", "state_after")


def _collection(user):
    return UserCard.objects.filter(user=user).select_related("card").order_by("id")


def _reviews_by_card(user) -> dict[int, list[ReviewLog]]:
    grouped: dict[int, list[ReviewLog]] = {}
    for log in ReviewLog.objects.filter(user=user).order_by("reviewed_at", "id").iterator():
        grouped.setdefault(log.user_card_id, []).append(log)
    return grouped


def review_dict(log: ReviewLog) -> dict:
    return {"review_id": str(log.review_id), "rating": log.rating, "reviewed_at": iso(log.reviewed_at),
            "duration_ms": log.duration_ms, "state_before": log.state_before, "state_after": log.state_after,
            "before": log.before, "after": log.after}


def export_json(*, user, now: datetime) -> dict:
    reviews = _reviews_by_card(user)
    cards = [
        {"source_type": uc.card.source_type, "source_id": uc.card.source_id, "front": uc.card.front,
         "back": uc.card.back, "added_at": iso(uc.added_at), **snapshot(uc),
         "reviews": [review_dict(log) for log in reviews.get(uc.pk, [])]}
        for uc in _collection(user)
    ]
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "exported_at": iso(now), "cards": cards}


def _csv(rows: list[list], header: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def export_csv_zip(*, user) -> bytes:
    card_header = ["card_id", "source_type", "source_id", "front", "back", "added_at", *SNAPSHOT_FIELDS]
    card_rows = [[uc.card_id, uc.card.source_type, uc.card.source_id, uc.card.front, uc.card.back, iso(uc.added_at),
                  *snapshot(uc).values()] for uc in _collection(user)]
    review_rows = [[log.user_card.card_id, *[review_dict(log)[name] for name in REVIEW_FIELDS]]
                   for log in ReviewLog.objects.filter(user=user).select_related("user_card").order_by("reviewed_at")]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("cards.csv", _csv(card_rows, card_header))
        archive.writestr("reviews.csv", _csv(review_rows, ["card_id", *REVIEW_FIELDS]))
    return buffer.getvalue()


ANKI_MODEL = genanki.Model(
    1_740_100_001, "LLM-serving kit card",
    fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Source"}],
    templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"}],
)


def export_apkg(*, user) -> bytes:
    deck = genanki.Deck(1_740_200_000 + user.pk, "LLM-serving interview kit")
    for uc in _collection(user):
        card = uc.card
        source = f"{card.source_type}:{card.source_id}"
        tags = [card.source_type] + (["leech"] if uc.leech else [])
        deck.add_note(genanki.Note(model=ANKI_MODEL, fields=[card.front_html or card.front,
                                                             card.back_html or card.back, source],
                                   guid=genanki.guid_for("llmkit", source), tags=tags))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "deck.apkg"
        genanki.Package(deck).write_to_file(str(path), timestamp=0)
        return path.read_bytes()


# --- import -------------------------------------------------------------------------------------------------


def _card_map(cards: list[dict]) -> dict[int, Card]:
    """Index in the file -> Card; every entry must name an existing card exactly once."""
    wanted = {(c["source_type"], c["source_id"]) for c in cards}
    found = {(card.source_type, card.source_id): card for card in Card.objects.filter(
        source_id__in={source_id for _, source_id in wanted})}
    result, seen, errors = {}, set(), {}
    for index, entry in enumerate(cards):
        key = (entry["source_type"], entry["source_id"])
        if key in seen:
            errors[f"cards.{index}.source_id"] = ["This card appears twice in the file."]
        elif key not in found:
            errors[f"cards.{index}.source_id"] = ["No such card."]
        else:
            result[index] = found[key]
        seen.add(key)
    if errors:
        raise ValidationError(errors)
    return result


def _check_review_ids(user, cards: list[dict]) -> None:
    ids = [review["review_id"] for card in cards for review in card["reviews"]]
    if len(ids) != len(set(ids)):
        raise ValidationError({"cards": ["A review_id appears twice in the file."]})
    taken = ReviewLog.objects.filter(review_id__in=ids).exclude(user=user).exists()
    if taken:
        raise ValidationError({"cards": ["The file holds review ids that belong to another account."]})


@transaction.atomic
def import_json(*, user, cards: list[dict]) -> dict[str, int]:
    """Replaces the learner's collection and review log with the (validated) file's content."""
    card_map = _card_map(cards)
    _check_review_ids(user, cards)
    UserCard.objects.filter(user=user).delete()
    user_cards = []
    for index, entry in enumerate(cards):
        user_card = UserCard(user=user, card=card_map[index], added_at=entry["added_at"])
        restore(user_card, {name: _text(entry.get(name)) for name in SNAPSHOT_FIELDS})
        user_cards.append(user_card)
    UserCard.objects.bulk_create(user_cards, batch_size=1000)
    logs = [
        ReviewLog(user=user, user_card=user_card, **{name: review[name] for name in REVIEW_FIELDS},
                  before={name: _text(review["before"].get(name)) for name in SNAPSHOT_FIELDS},
                  after=review["after"])
        for user_card, entry in zip(user_cards, cards, strict=True) for review in entry["reviews"]
    ]
    ReviewLog.objects.bulk_create(logs, batch_size=2000)
    return {"cards": len(user_cards), "reviews": len(logs)}


def _text(value):
    return iso(value) if isinstance(value, datetime) else value
