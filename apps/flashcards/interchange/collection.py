"""The kit's own collection format, both ways: ``{"format": "llmkit-flashcards", "version": 1, "exported_at",
"cards": [...]}``; each card holds its source (``source_type``, ``source_id``), front/back, every scheduling column
and ``reviews`` (the full log with the before-state snapshots). Importing it restores the collection exactly."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Q
from django.utils.dateparse import parse_datetime

from apps.core.exceptions import Conflict, InvalidInput
from apps.core.parsers import StreamedJSON
from apps.flashcards.models import Card, CardState, ReviewLog, SourceType, SrsSettings, UserCard
from apps.flashcards.state import SNAPSHOT_FIELDS, iso, settings_get, snapshot

FORMAT_NAME = "llmkit-flashcards"
FORMAT_VERSION = 1
REVIEW_FIELDS = ("review_id", "rating", "reviewed_at", "duration_ms", "state_before", "state_after")


def learner_cards(user):
    return UserCard.objects.filter(user=user).select_related("card").order_by("id")


def _reviews_by_card(user_cards: list[UserCard]) -> dict[int, list[ReviewLog]]:
    grouped: dict[int, list[ReviewLog]] = {}
    for log in ReviewLog.objects.filter(user_card__in=user_cards).order_by("reviewed_at", "id"):
        grouped.setdefault(log.user_card_id, []).append(log)
    return grouped


def review_dict(log: ReviewLog) -> dict:
    return {"review_id": str(log.review_id), "rating": log.rating, "reviewed_at": iso(log.reviewed_at),
            "duration_ms": log.duration_ms, "state_before": log.state_before, "state_after": log.state_after,
            "before": log.before, "after": log.after}


EXPORT_BATCH = 500


def export_json(*, user, now: datetime) -> Iterator[bytes]:
    """The collection as JSON, written a batch of cards at a time with their reviews, so that the memory an export
    holds is one batch's whatever the collection's size (the whole document was built in memory before: 682 MB
    for a 44 MB export). The bytes are the compact JSON the API writes everywhere."""
    header = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "exported_at": iso(now)}
    yield _json(header)[:-1] + b',"cards":['
    last_id, separator = 0, b""
    while batch := list(learner_cards(user).filter(id__gt=last_id)[:EXPORT_BATCH]):
        reviews = _reviews_by_card(batch)
        for uc in batch:
            card = {"source_type": uc.card.source_type, "source_id": uc.card.source_id,
                    "ordinal": uc.card.ordinal, "front": uc.card.front,
                    "back": uc.card.back, "added_at": iso(uc.added_at), **snapshot(uc),
                    "reviews": [review_dict(log) for log in reviews.get(uc.pk, [])]}
            yield separator + _json(card)
            separator = b","
        last_id = batch[-1].pk
    yield b"]}"


def _json(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


MAX_CARDS, MAX_REVIEWS_PER_CARD, MAX_ERRORS, BATCH = 20_000, 10_000, 50, 500
STATES = {state.value for state in CardState}
SOURCE_TYPES = {source_type.value for source_type in SourceType}
SNAPSHOT_RULES = {  # name: (kind, minimum, maximum, nullable) — the same bounds as the API's SnapshotSerializer
    "state": ("state", None, None, False), "step": ("int", 0, 100, True), "stability": ("float", 0.001, 1e6, True),
    "difficulty": ("float", 1, 10, True), "due": ("datetime", None, None, False),
    "last_review": ("datetime", None, None, True), "reps": ("int", 0, 10**7, False),
    "lapses": ("int", 0, 10**7, False), "suspended": ("bool", None, None, False), "leech": ("bool", None, None, False),
    "buried_until": ("datetime", None, None, True), "source_changed": ("bool", None, None, False),
}
CARD_RULES = {**SNAPSHOT_RULES, "source_type": ("source_type", None, None, False),
              "source_id": ("int", 1, 2**63 - 1, False), "added_at": ("datetime", None, None, False)}
ORDINAL_RULE = ("int", 0, 99, False)
REVIEW_RULES = {"review_id": ("uuid", None, None, False), "rating": ("int", 1, 4, False),
                "reviewed_at": ("datetime", None, None, False), "duration_ms": ("int", 0, 86_400_000, True),
                "state_before": ("state", None, None, False), "state_after": ("state", None, None, False)}
HEADER = {"format", "version", "exported_at", "cards"}
MAX_AFTER_KEYS = 64


class _Errors(dict):
    """field path -> messages; full at MAX_ERRORS (then the import stops reading and answers them)."""

    def add(self, field: str, message: str) -> None:
        self.setdefault(field, []).append(message)
        if len(self) >= MAX_ERRORS:
            raise InvalidInput.of_fields(dict(self))


def _field(errors: _Errors, path: str, rule: tuple, value):
    """One field checked against its rule; returns the clean value (None after recording an error)."""
    kind, low, high, nullable = rule
    if value is None:
        if not nullable:
            errors.add(path, "This field may not be null." if kind else "This field is required.")
        return None
    if kind in ("int", "state"):
        if isinstance(value, bool) or not isinstance(value, int):
            errors.add(path, "A valid integer is required.")
            return None
        if kind == "state" and value not in STATES:
            errors.add(path, f'"{value}" is not a valid choice.')
            return None
        if kind == "int" and not low <= value <= high:
            errors.add(path, f"Ensure this value is between {low} and {high}.")
            return None
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            errors.add(path, f"A number between {low} and {high} is required.")
            return None
        return float(value)
    if kind == "bool":
        if not isinstance(value, bool):
            errors.add(path, "Must be a valid boolean.")
            return None
        return value
    if not isinstance(value, str) or len(value) > 64:
        errors.add(path, "A string is required.")
        return None
    if kind == "datetime":
        try:
            parsed = parse_datetime(value)
        except ValueError:
            parsed = None
        if parsed is None:
            errors.add(path, "Datetime has wrong format.")
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    if kind == "uuid":
        try:
            return uuid.UUID(value)
        except ValueError:
            errors.add(path, "Must be a valid UUID.")
            return None
    if value not in SOURCE_TYPES:  # source_type
        errors.add(path, f'"{value}" is not a valid choice.')
        return None
    return value


def _object(errors: _Errors, path: str, value, rules: dict, extra: tuple = ()) -> dict | None:
    """A JSON object with exactly the fields of ``rules`` (plus ``extra``, checked by the caller), each valid."""
    if not isinstance(value, dict):
        errors.add(path or "non_field_errors", "Expected a JSON object.")
        return None
    count = len(errors)
    for name in value.keys() - rules.keys() - set(extra):
        errors.add(f"{path}.{name}" if path else name, "Unknown field.")
    clean = {name: _field(errors, f"{path}.{name}", rule, value.get(name)) for name, rule in rules.items()}
    return clean if len(errors) == count else None


def _after(errors: _Errors, path: str, value) -> dict | None:
    """What the review endpoint answered: a flat object of scalars, stored as given."""
    if (not isinstance(value, dict) or len(value) > MAX_AFTER_KEYS
            or any(isinstance(item, (dict, list)) or (isinstance(item, str) and len(item) > 200)
                   for item in value.values())):
        errors.add(path, f"Expected a flat JSON object of at most {MAX_AFTER_KEYS} scalar values.")
        return None
    return value


def _card(errors: _Errors, index: int, entry) -> tuple[dict, list[tuple[dict, dict, dict]]] | None:
    """One card of the file: (card fields, [(review fields, before snapshot, after)]) or None after errors."""
    path = f"cards.{index}"
    card = _object(errors, path, entry, CARD_RULES, extra=("reviews", "front", "back", "ordinal"))
    if not isinstance(entry, dict):
        return None
    ordinal = _field(errors, f"{path}.ordinal", ORDINAL_RULE, entry.get("ordinal", 0))  # absent in older files
    if card is not None:
        card["ordinal"] = ordinal
    for name in ("front", "back"):  # written by the export for people reading it; the card's own text is used
        if name in entry and not isinstance(entry[name], str):
            errors.add(f"{path}.{name}", "A string is required.")
    reviews = entry.get("reviews")
    if not isinstance(reviews, list):
        errors.add(f"{path}.reviews", "Expected a list of reviews.")
        return None
    if len(reviews) > MAX_REVIEWS_PER_CARD:
        errors.add(f"{path}.reviews", f"Ensure this field has no more than {MAX_REVIEWS_PER_CARD} elements.")
        return None
    clean_reviews = []
    for number, review in enumerate(reviews):
        review_path = f"{path}.reviews.{number}"
        fields = _object(errors, review_path, review, REVIEW_RULES, extra=("before", "after"))
        if fields is None:
            continue
        before = _object(errors, f"{review_path}.before", review.get("before"), SNAPSHOT_RULES)
        after = _after(errors, f"{review_path}.after", review.get("after"))
        if before is not None and after is not None:
            clean_reviews.append((fields, {name: _text(value) for name, value in before.items()}, after))
    return (card, clean_reviews) if card is not None else None


def _members(document):
    """(kind, key, value) of an import body: a StreamedJSON walked once, or an already-parsed dict."""
    if isinstance(document, StreamedJSON):
        yield from document.members()
        return
    if not isinstance(document, dict):
        raise InvalidInput("Expected a JSON object.", field="non_field_errors")
    for key, value in document.items():
        if isinstance(value, list):
            for item in value:
                yield StreamedJSON.ARRAY_ITEM, key, item
        else:
            yield StreamedJSON.SCALAR, key, value


def _lock_collection(user) -> None:
    """Serializes imports of one collection: the learner's settings row, locked without waiting, until commit."""
    try:
        with transaction.atomic():
            list(SrsSettings.objects.select_for_update(nowait=True).filter(user=user).values_list("pk", flat=True))
    except OperationalError as exc:
        raise Conflict("An import of your collection is already running; try again when it has finished.") from exc


def import_json(*, user, document) -> dict[str, int]:
    """Replaces the learner's collection and review log with the file's content, read as a stream.

    Every field is checked (unknown fields refused); cards are written in batches of BATCH as the body is read, so
    memory holds one batch, never the whole file. Any error rolls everything back and answers up to MAX_ERRORS
    problems by field path. A second import of the same collection while one runs is a Conflict (409).
    """
    settings_get(user=user)  # the row the lock is taken on, committed before the import's transaction
    errors = _Errors()
    seen_cards: set[tuple[str, int]] = set()
    seen_reviews: set[uuid.UUID] = set()
    totals = {"cards": 0, "reviews": 0}
    header: dict = {}
    try:
        with transaction.atomic():
            _lock_collection(user)
            UserCard.objects.filter(user=user).delete()
            batch: list[tuple[int, tuple]] = []
            for kind, key, value in _members(document):
                if key not in HEADER:
                    if key not in errors:  # once, however long an unknown array
                        errors.add(key, "Unknown field.")
                elif key != "cards":
                    header[key] = value
                elif kind != StreamedJSON.ARRAY_ITEM:
                    errors.add("cards", "Expected a list of cards.")
                elif totals["cards"] >= MAX_CARDS:
                    errors.add("cards", f"Ensure this field has no more than {MAX_CARDS} elements.")
                    raise InvalidInput.of_fields(dict(errors))
                else:
                    index = totals["cards"]
                    totals["cards"] += 1
                    parsed = _card(errors, index, value)
                    if parsed is not None:
                        batch.append((index, parsed))
                    if len(batch) >= BATCH:
                        _write_batch(user, batch, errors, seen_cards, seen_reviews, totals)
                        batch = []
            _write_batch(user, batch, errors, seen_cards, seen_reviews, totals)
            if header.get("format") != FORMAT_NAME:
                errors.add("format", f'Expected "{FORMAT_NAME}".')
            if header.get("version") != FORMAT_VERSION or isinstance(header.get("version"), bool):
                errors.add("version", f"Expected {FORMAT_VERSION}.")
            if "exported_at" in header:
                _field(errors, "exported_at", ("datetime", None, None, True), header["exported_at"])
            if errors:
                raise InvalidInput.of_fields(dict(errors))
    except IntegrityError as exc:  # another account imported the same review ids at the same moment
        raise Conflict("The file's reviews clash with data written at the same time; try again.") from exc
    return totals


def _write_batch(user, batch, errors: _Errors, seen_cards: set, seen_reviews: set, totals: dict) -> None:
    """Checks one batch against the database (cards exist, each once; review ids unique and not another
    account's) and writes it unless an error was found anywhere so far."""
    if not batch:
        return
    keys = {(card["source_type"], card["source_id"], card["ordinal"]) for _, (card, _) in batch}
    found = {(card.source_type, card.source_id, card.ordinal): card for card in Card.objects.filter(
        Q(owner__isnull=True) | Q(owner=user),  # content, or the learner's own
        source_id__in={source_id for _, source_id, _ in keys})}
    review_ids = []
    for index, (card, reviews) in batch:
        key = (card["source_type"], card["source_id"], card["ordinal"])
        if key in seen_cards:
            errors.add(f"cards.{index}.source_id", "This card appears twice in the file.")
        elif key not in found:
            errors.add(f"cards.{index}.source_id", "No such card.")
        seen_cards.add(key)
        for fields, _, _ in reviews:
            if fields["review_id"] in seen_reviews:
                errors.add("cards", "A review_id appears twice in the file.")
            seen_reviews.add(fields["review_id"])
            review_ids.append(fields["review_id"])
    if review_ids and ReviewLog.objects.filter(review_id__in=review_ids).exclude(user=user).exists():
        errors.add("cards", "The file holds review ids that belong to another account.")
    if errors:
        return
    user_cards = []
    for _, (card, _) in batch:
        user_card = UserCard(user=user, card=found[(card["source_type"], card["source_id"], card["ordinal"])],
                             added_at=card["added_at"], **{name: card[name] for name in SNAPSHOT_FIELDS})
        if user_card.card.retired and not user_card.suspended:
            # its source was unpublished or removed since the export: suspended until the source comes back
            user_card.suspended = user_card.suspended_by_retirement = True
        user_cards.append(user_card)
    UserCard.objects.bulk_create(user_cards, batch_size=BATCH)
    logs = [
        ReviewLog(user=user, user_card=user_card, **{name: fields[name] for name in REVIEW_FIELDS},
                  before=before, after=after)
        for user_card, (_, (_, reviews)) in zip(user_cards, batch, strict=True) for fields, before, after in reviews
    ]
    ReviewLog.objects.bulk_create(logs, batch_size=2000)
    totals["reviews"] += len(logs)


def _text(value):
    return iso(value) if isinstance(value, datetime) else value
