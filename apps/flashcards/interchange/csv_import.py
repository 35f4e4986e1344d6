"""Import of a flashcard CSV file: the kit's own CSV export (apps.flashcards.interchange.anki_export.export_csv), or
any CSV with Anki's header lines or a header row that names a Front and a Back column.

- A row whose GUID is one the kit gives a card (a content card, or one of the learner's own) is that card: added to
  the collection if the learner does not hold it, and given the row's schedule (State, Due, Last review,
  Stability, Difficulty, Reps, Lapses, Suspended) when the row's last review is later than the kit's, as a
  spreadsheet edit or another account's export would carry it.
- Any other row is a basic card of the learner's own (Front and Back, HTML or Markdown, through the content
  sanitizer), in All cards; a row with the same two sides as an own card the learner has is skipped, so importing
  a file twice adds nothing.
- All or nothing: every row is checked first, and an error anywhere names the row and column and changes nothing.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime

from django.db import transaction
from django.utils.dateparse import parse_datetime

from apps.core.exceptions import InvalidInput
from apps.flashcards import own_cards
from apps.flashcards.interchange.anki_export import csv_guid
from apps.flashcards.interchange.anki_import import kit_card_candidates
from apps.flashcards.models import Card, CardState, Deck, OwnNote, SourceType, SrsSettings, UserCard
from apps.flashcards.state import settings_get

MAX_BYTES = 20 * 1024 * 1024
MAX_ROWS = 20_000
STATES = {state.label.lower(): state for state in CardState}


def _invalid(message: str, field: str = "file") -> InvalidInput:
    return InvalidInput(message, field=field)


def _rows(data: bytes) -> tuple[list[str], list[list[str]]]:
    """(column names, rows) of the file: Anki's header lines (``#columns:``, ``#separator:``) or a header row."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _invalid("The file is not UTF-8 text.") from None
    lines = text.splitlines(keepends=True)
    headers, body_start = {}, 0
    for body_start, line in enumerate(lines):  # noqa: B007 (the index of the first line after the headers)
        if not line.startswith("#"):
            break
        name, _, value = line[1:].partition(":")
        headers[name.strip().lower()] = value.strip()
    else:
        body_start = len(lines)
    separator = {"comma": ",", "semicolon": ";", "tab": "\t", "pipe": "|"}.get(headers.get("separator", "comma"), ",")
    try:
        rows = list(csv.reader(io.StringIO("".join(lines[body_start:])), delimiter=separator, strict=True))
    except csv.Error as exc:
        raise _invalid(f"The file is not readable as CSV: {exc}.") from None
    if "columns" in headers:
        columns = [name.strip() for name in headers["columns"].split(separator)]
    elif rows:
        columns, rows = [name.strip() for name in rows[0]], rows[1:]
    else:
        columns = []
    if not {"Front", "Back"} <= set(columns):
        raise _invalid("The file needs a Front and a Back column (a header row, or Anki's #columns: line).")
    return columns, [row for row in rows if any(cell.strip() for cell in row)]


def _when(value: str, where: str) -> datetime | None:
    if not value:
        return None
    try:
        moment = parse_datetime(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise _invalid(f"{where}: not a date and time with its offset (ISO 8601).", field=where)
    return moment


def _number(value: str, where: str, low: float, high: float) -> float | None:
    if not value:
        return None
    try:
        number = float(value)
    except ValueError:
        raise _invalid(f"{where}: not a number.", field=where) from None
    if not low <= number <= high:
        raise _invalid(f"{where}: must be between {low:g} and {high:g}.", field=where)
    return number


def _schedule(cells: dict[str, str], row: int) -> dict | None:
    """The row's schedule, or None when it has none (no State column, an empty one, or a card never studied)."""
    label = cells.get("State", "").strip().lower()
    if not label or label == CardState.NEW.label.lower():
        return None
    where = f"rows.{row}"
    if label not in STATES:
        raise _invalid(f"{where}.State: one of {', '.join(STATES)}.", field=f"{where}.State")
    state = STATES[label]
    due = _when(cells.get("Due", "").strip(), f"{where}.Due")
    last = _when(cells.get("Last review", "").strip(), f"{where}.Last review")
    stability = _number(cells.get("Stability", "").strip(), f"{where}.Stability", 0.001, 1e6)
    difficulty = _number(cells.get("Difficulty", "").strip(), f"{where}.Difficulty", 1, 10)
    if state != CardState.NEW and (due is None or last is None or stability is None or difficulty is None):
        raise _invalid(f"{where}: a card that was studied needs Due, Last review, Stability and Difficulty.",
                       field=f"{where}.State")
    counts = [_number(cells.get(name, "").strip() or "0", f"{where}.{name}", 0, 10**7) for name in ("Reps", "Lapses")]
    suspended = cells.get("Suspended", "").strip().lower()
    if suspended not in ("", "yes", "no"):
        raise _invalid(f"{where}.Suspended: yes or no.", field=f"{where}.Suspended")
    return {"state": state, "due": due, "last_review": last, "stability": stability, "difficulty": difficulty,
            "reps": int(counts[0] or 0), "lapses": int(counts[1] or 0), "suspended": suspended == "yes",
            "step": 0 if state in (CardState.LEARNING, CardState.RELEARNING) else None}


def import_csv(*, user, data: bytes, now: datetime) -> dict:
    columns, rows = _rows(data)
    if len(rows) > MAX_ROWS:
        raise _invalid(f"Too many rows: {len(rows)} (at most {MAX_ROWS}).")
    by_guid = {csv_guid(card): card for card in kit_card_candidates(user)}
    own_sides = set(OwnNote.objects.filter(user=user, kind="basic").values_list("front", "back"))
    kit, own = [], []
    for index, row in enumerate(rows):
        if len(row) != len(columns):
            raise _invalid(f"Row {index + 1} has {len(row)} cells; the header names {len(columns)}.",
                           field=f"rows.{index}")
        cells = dict(zip(columns, row, strict=True))
        card = by_guid.get(cells.get("GUID", "").strip())
        if card is not None:
            kit.append((card, _schedule(cells, index)))
            continue
        front, back = cells["Front"].strip(), cells["Back"].strip()
        if (front, back) in own_sides:
            continue
        own_sides.add((front, back))
        made = Card(source_type=SourceType.OWN, owner=user)
        try:
            if len(front) > own_cards.FRONT_MAX_CHARS or len(back) > own_cards.BACK_MAX_CHARS:
                raise InvalidInput("A side is longer than own cards allow.", field="front")
            own_cards.render(made, "basic", front, back)
            own_cards.check_images(user, made)
        except InvalidInput as exc:
            raise _invalid(f"Row {index + 1}: {exc.message}", field=f"rows.{index}") from None
        own.append((OwnNote(user=user, kind="basic", front=front, back=back), made, _schedule(cells, index)))
    settings_get(user=user)
    with transaction.atomic():
        SrsSettings.objects.select_for_update().get(user=user)  # one import of a collection at a time
        held = {uc.card_id: uc for uc in UserCard.objects.filter(user=user, card__in=[card for card, _ in kit])}
        added, updated = [], []
        for card, schedule in kit:
            mine = held.get(card.pk)
            if mine is None:
                added.append(UserCard(user=user, card=card, added_at=now, **(schedule or {"due": now})))
                held[card.pk] = added[-1]
            elif schedule and schedule["last_review"] and (mine.last_review is None
                                                           or schedule["last_review"] > mine.last_review):
                for name, value in schedule.items():
                    setattr(mine, name, value)
                updated.append(mine)
        OwnNote.objects.bulk_create([note for note, _, _ in own], batch_size=1000)
        for note, card, _ in own:
            card.source_id = note.pk
        Card.objects.bulk_create([card for _, card, _ in own], batch_size=1000)
        everything = Deck.objects.filter(slug="all").first()
        if everything is not None:
            Card.decks.through.objects.bulk_create([Card.decks.through(card_id=card.pk, deck_id=everything.pk)
                                                    for _, card, _ in own], batch_size=1000)
        added += [UserCard(user=user, card=card, added_at=now, **(schedule or {"due": now})) for _, card, schedule in own]
        UserCard.objects.bulk_create(added, batch_size=1000)
        UserCard.objects.bulk_update(updated, [name for name in ("state", "due", "last_review", "stability",
                                                                 "difficulty", "reps", "lapses", "suspended", "step")],
                                     batch_size=1000)
    return {"cards": len(added), "updated": len(updated), "own_cards": len(own),
            "skipped": len(rows) - len(kit) - len(own)}
