"""Import of a learner's own Anki package (.apkg): its notes become the learner's own cards (in All cards), with
their scheduling (state, due, FSRS memory, reps, lapses, suspended, buried, flag) and their review log, so someone
moving from Anki keeps their history.

- Format: a zip holding the collection as SQLite. Anki's default since 2.1.50 (``meta`` says version 3): the
  collection is ``collection.anki21b``, zstd-compressed, in the newer schema (notetypes, decks, fields in tables of
  their own; notes, cards and revlog keep their columns), next to a stub ``collection.anki2`` that only asks to
  update Anki. Older packages (``meta`` version 1 or 2, or no ``meta``): ``collection.anki21``, or
  ``collection.anki2`` from older Anki. A version newer than 3 is refused with a message.
- Media: the images the added cards show (``<img src="name.png">``) become the learner's card images, through the
  upload's checks, size limit and quota, and the cards show them by their path (apps.flashcards.interchange.anki_media: the
  package's media layouts, bounds). A file refused there (a sound, not an image, too large, over the quota) leaves
  its card's text as it is and is reported in the result's ``media``; the import goes on.
- Bounds: the body (MAX_BYTES), the collection once unzipped and decompressed (MAX_COLLECTION_BYTES: read from the
  zip's own sizes, and enforced while reading: both the zip member and the zstd stream are read in chunks and
  reading stops one byte past the limit, so a zip or zstd bomb is refused without being unpacked whole), cards and
  reviews (MAX_CARDS, MAX_REVIEWS), and each side's length (own cards'). The collection is read in memory (sqlite3
  deserialize), never written to disk.
- Cards: a note whose first field holds cloze deletions is a cloze card per Anki card (that card's deletion blanked,
  the others shown, as Anki does); any other note is a basic card (first field front, second back). Fields are
  Anki's HTML, rendered by the content sanitizer. Memory: Anki's FSRS state where the package has it, else FSRS's
  conversion of the SM-2 ease and interval (fsrs-rs ``memory_state_from_sm2``).
- Decks: each card keeps the full name of its Anki deck ("Interview::Serving::GPU"; a card in a filtered deck,
  its home deck's, and its due date there) on its note (``OwnNote.anki_deck``), shown with the card; the cards also count in All cards.
  The package's deck names come from the ``decks`` table (newer schema: levels separated by \\x1f) or the ``col``
  row's JSON (older schema).
- Our own exports come back in place: a note whose GUID is one the kit gives a card (apps.flashcards.interchange.
  anki_export.anki_guid: a content card, or one of the learner's own) is that card, never a new one. If Anki changed
  the card after the export (its modification time is later than the learner's last review or addition here) the
  package's schedule, suspension and flag replace the kit's; reviews the kit does not hold yet (matched by their
  time, to the millisecond the export wrote) are added. A content card the learner had not added is added with the
  package's schedule. This is how progress made in Anki comes back, and why importing an export into the same
  account twice adds nothing.
- Idempotent: a card already imported (same Anki card id) is skipped, reviews have ids derived from the learner
  and Anki's review id, and only the added cards' images are read (the same bytes are one image), so importing the
  same package again changes nothing.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import uuid
import zipfile
import zlib
from collections import Counter
from datetime import UTC, datetime, timedelta

import fsrs_rs_python as fsrs_rs
import zstandard
from django.db import transaction

from apps.core.exceptions import InvalidInput
from apps.flashcards import own_cards
from apps.flashcards.interchange.anki_export import anki_guid
from apps.flashcards.interchange.anki_media import link_images, media_import, protobuf_fields
from apps.flashcards.models import Card, CardState, Deck, OwnNote, ReviewLog, SourceType, SrsSettings, UserCard
from apps.flashcards.state import day_clock, settings_get

MAX_BYTES = 20 * 1024 * 1024
MAX_COLLECTION_BYTES = 64 * 1024 * 1024
MAX_CARDS = 20_000
MAX_REVIEWS = 200_000
REVIEW_NAMESPACE = uuid.UUID("6f1c2d4e-8a7b-4c3d-9e0f-a1b2c3d4e5f6")
CLOZE_ORDINAL = re.compile(r"\{\{c(\d+)::(.+?)(?:::(.+?))?\}\}", re.DOTALL)
ANKI_STATES = {0: CardState.NEW, 1: CardState.LEARNING, 2: CardState.REVIEW, 3: CardState.RELEARNING}
REVLOG_STATES = {0: CardState.LEARNING, 1: CardState.REVIEW, 2: CardState.RELEARNING, 3: CardState.REVIEW}
LATEST_PACKAGE_VERSION = 3  # Anki's PackageMetadata.Version: 1 legacy (anki2), 2 legacy (anki21), 3 latest (anki21b)
CHUNK_BYTES = 1024 * 1024


def _invalid(message: str) -> InvalidInput:
    return InvalidInput(message, field="file")


def _too_large() -> InvalidInput:
    return _invalid(f"The collection is too large once unpacked (at most {MAX_COLLECTION_BYTES // 2**20} MB).")


def package_version(meta: bytes) -> int:
    """The version in the package's ``meta`` file: Anki's PackageMetadata protobuf, field 1 (a varint); other
    fields are skipped, as a protobuf reader does."""
    version = 0
    try:
        for number, value in protobuf_fields(meta):
            if number == 1 and isinstance(value, int):
                version = value
    except ValueError:
        raise _invalid("Not an Anki package: its meta file is unreadable.") from None
    return version


def _read_bounded(stream) -> bytes:
    """Everything ``stream`` yields, read in chunks, refused as soon as it passes MAX_COLLECTION_BYTES."""
    raw = bytearray()
    while chunk := stream.read(CHUNK_BYTES):
        raw += chunk
        if len(raw) > MAX_COLLECTION_BYTES:
            raise _too_large()
    return bytes(raw)


def _collection_bytes(package: zipfile.ZipFile, names: set[str]) -> tuple[bytes, bool]:
    """The collection's SQLite file from the package, unzipped and (new format) zstd-decompressed, bounded; and
    whether the package is in the new format (zstd-compressed, media listed in protobuf)."""
    version = 0
    if "meta" in names:
        if package.getinfo("meta").file_size > 1024:
            raise _invalid("Not an Anki package: its meta file is unreadable.")
        version = package_version(package.read("meta"))
    if version > LATEST_PACKAGE_VERSION:
        raise _invalid(f"This package comes from a newer Anki (package version {version}) than this import reads: "
                       "export it from Anki with \"Support older Anki versions\" ticked.")
    compressed = version == LATEST_PACKAGE_VERSION or (version == 0 and "collection.anki21b" in names)
    candidates = ("collection.anki21b",) if compressed else ("collection.anki21", "collection.anki2")
    name = next((n for n in candidates if n in names), None)
    if name is None:
        raise _invalid("Not an Anki package: no collection in the archive.")
    if not compressed and package.getinfo(name).file_size > MAX_COLLECTION_BYTES:
        raise _too_large()
    try:
        with package.open(name) as member:  # the zip's stated size is not trusted: reading stops past the limit
            if not compressed:
                return _read_bounded(member), compressed
            reader = zstandard.ZstdDecompressor().stream_reader(member, read_across_frames=True)
            return _read_bounded(reader), compressed
    except zstandard.ZstdError:
        raise _invalid("The package's collection is not readable: its zstd compression is broken.") from None
    except (zipfile.BadZipFile, zlib.error, EOFError):
        raise _invalid("Not an Anki package: the archive is damaged.") from None


def open_collection(data: bytes) -> sqlite3.Connection:
    """The package's collection as an in-memory SQLite database, after checking the zip and its sizes."""
    return open_package(data)[2]


def open_package(data: bytes) -> tuple[zipfile.ZipFile, bool, sqlite3.Connection]:
    """The package's zip, whether it is in the new format, and its collection (as ``open_collection``)."""
    if len(data) > MAX_BYTES:
        raise _invalid(f"Anki package too large (at most {MAX_BYTES // (1024 * 1024)} MB).")
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
        names = set(package.namelist())
    except (zipfile.BadZipFile, ValueError):
        raise _invalid("Not an Anki package: an .apkg file is a zip archive.") from None
    raw, compressed = _collection_bytes(package, names)
    if len(raw) < 100 or raw[:16] != b"SQLite format 3\x00":  # 100: SQLite's header; empty would not deserialize
        raise _invalid("The package's collection is not a readable Anki database.")
    if raw[18:20] == b"\x02\x02":
        # Anki writes the new format in WAL mode; read alone (no -wal file) it is a rollback-journal database
        raw = raw[:18] + b"\x01\x01" + raw[20:]
    connection = sqlite3.connect(":memory:")
    try:
        connection.deserialize(raw)
        tables = {row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")}
    except sqlite3.DatabaseError:
        raise _invalid("The package's collection is not a readable Anki database.") from None
    if not {"col", "notes", "cards", "revlog"} <= tables:
        raise _invalid("The package's collection is not an Anki collection (tables missing).")
    return package, compressed, connection


def _cloze_for(text: str, ordinal: int) -> str:
    """The note's text for one of its cloze cards: that card's deletions kept, the others shown as plain text."""
    return CLOZE_ORDINAL.sub(lambda m: m.group(0) if int(m.group(1)) == ordinal else m.group(2), text)


def note_sides(fields: list[str], ordinal: int) -> tuple[str, str, str]:
    """(kind, front, back) as a learner would have written them, for the card ``ordinal`` (0-based) of a note."""
    first, second = fields[0], fields[1] if len(fields) > 1 else ""
    if CLOZE_ORDINAL.search(first):
        return "cloze", _cloze_for(first, ordinal + 1), second
    return "basic", first, second


def deck_names(connection: sqlite3.Connection) -> dict[int, str]:
    """Anki deck id -> full deck name with "::" between levels, from either schema."""
    tables = {row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")}
    if "decks" in tables:
        return {deck_id: str(name).replace("\x1f", "::") for deck_id, name in
                connection.execute("select id, name from decks")}
    (raw,) = connection.execute("select decks from col").fetchone()
    try:
        decks = json.loads(raw or "{}")
    except (TypeError, ValueError):
        decks = {}
    names = {}
    for key, deck in (decks.items() if isinstance(decks, dict) else ()):
        if isinstance(deck, dict) and isinstance(deck.get("name"), str) and str(key).lstrip("-").isdigit():
            names[int(key)] = deck["name"]
    return names


def _moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def _memory(data: str, *, ivl: int, factor: int) -> tuple[float | None, float | None]:
    """(stability, difficulty): Anki's FSRS state when the card has one, else converted from SM-2."""
    try:
        state = json.loads(data or "{}")
    except ValueError:
        state = {}
    if isinstance(state, dict) and isinstance(state.get("s"), int | float) and isinstance(state.get("d"), int | float):
        return max(float(state["s"]), 0.001), min(max(float(state["d"]), 1.0), 10.0)
    if ivl <= 0:
        return None, None
    memory = fsrs_rs.FSRS(fsrs_rs.DEFAULT_PARAMETERS).memory_state_from_sm2(max(factor / 1000, 1.3), float(ivl), 0.9)
    return max(memory.stability, 0.001), min(max(memory.difficulty, 1.0), 10.0)


def _due(anki_type: int, queue: int, due: int, *, created: float, now: datetime) -> datetime:
    if anki_type == 2 or queue == 3:  # a review card, or a learning card due on a day: days since the collection began
        return _moment(created) + timedelta(days=due)
    if anki_type in (1, 3) and due > 1_000_000_000:  # learning card due at a time: epoch seconds
        return _moment(due)
    return now


def import_apkg(*, user, data: bytes, now: datetime) -> dict:
    package, compressed, connection = open_package(data)
    try:
        return _import(user=user, connection=connection, package=package, compressed=compressed, now=now)
    except sqlite3.DatabaseError:
        raise _invalid("The package's collection is not a readable Anki database.") from None
    finally:
        connection.close()


def _import(*, user, connection: sqlite3.Connection, package: zipfile.ZipFile, compressed: bool,
            now: datetime) -> dict:
    (created,) = connection.execute("select crt from col").fetchone()
    (card_count,) = connection.execute("select count(*) from cards").fetchone()
    (review_count,) = connection.execute("select count(*) from revlog").fetchone()
    if card_count > MAX_CARDS:
        raise _invalid(f"Too many cards: {card_count} (at most {MAX_CARDS}).")
    if review_count > MAX_REVIEWS:
        raise _invalid(f"Too many reviews: {review_count} (at most {MAX_REVIEWS}).")
    notes, guids = {}, {}
    for note_id, guid, fields in connection.execute("select id, guid, flds from notes"):
        notes[note_id], guids[note_id] = fields.split("\x1f"), guid
    ours = kit_cards(user, set(guids.values()))
    decks = deck_names(connection)
    last_reviews = {card_id: _moment(last / 1000) for card_id, last in connection.execute(
        "select cid, max(id) from revlog where ease between 1 and 4 group by cid")}
    settings_get(user=user)
    with transaction.atomic():
        SrsSettings.objects.select_for_update().get(user=user)  # one import of a collection at a time
        buried_until = day_clock(settings_get(user=user)).today_bounds(now)[1]
        known = set(OwnNote.objects.filter(user=user, anki_card_id__isnull=False).values_list("anki_card_id", flat=True))
        planned = []  # (anki card row, OwnNote, Card): validated before anything is written
        # a card in a filtered deck: its home deck (odid) and its due there (odue; due is its place in the filter)
        rows = connection.execute("select id, nid, ord, type, queue, "
                                  "case when odid != 0 and odue != 0 then odue else due end, ivl, factor, reps, "
                                  "lapses, flags, data, case when odid != 0 then odid else did end, mod "
                                  "from cards order by id").fetchall()
        returning = [(row, ours[(guids.get(row[1]), row[2])]) for row in rows if (guids.get(row[1]), row[2]) in ours]
        rows = [row for row in rows if (guids.get(row[1]), row[2]) not in ours]
        added_notes = {row[1] for row in rows if row[0] not in known and row[1] in notes}
        media = media_import(user=user, package=package, compressed=compressed,
                             texts=(text for note_id in sorted(added_notes) for text in notes[note_id]))
        for index, row in enumerate(rows):
            card_id, note_id, ordinal = row[:3]
            if card_id in known:
                continue
            if note_id not in notes:
                raise _invalid(f"Card {index + 1} (id {card_id}) belongs to no note.")
            kind, front, back = note_sides([link_images(text, media.links) for text in notes[note_id]], ordinal)
            deck = decks.get(row[12], "")
            # a cloze card keeps its Anki ord: its text keeps only that ord's deletions
            card = Card(source_type=SourceType.OWN, owner=user, ordinal=ordinal if kind == "cloze" else 0)
            try:
                if len(front) > own_cards.FRONT_MAX_CHARS or len(back) > own_cards.BACK_MAX_CHARS:
                    raise InvalidInput("A side is longer than own cards allow.", field="front")
                own_cards.render(card, kind, front, back)
            except InvalidInput as exc:
                raise _invalid(f"Card {index + 1} (id {card_id}): {exc.message}") from None
            planned.append((row, OwnNote(user=user, kind=kind, front=front, back=back, anki_card_id=card_id,
                                         anki_deck=deck), card))
        OwnNote.objects.bulk_create([note for _, note, _ in planned], batch_size=1000)
        for _, note, card in planned:
            card.source_id = note.pk
        Card.objects.bulk_create([card for _, _, card in planned], batch_size=1000)
        everything = Deck.objects.filter(slug="all").first()  # none before the first content load
        if everything is not None:
            Card.decks.through.objects.bulk_create([Card.decks.through(card_id=card.pk, deck_id=everything.pk)
                                                    for _, _, card in planned], batch_size=1000)
        imported = {row[0]: _user_card(user, card, row, created=created, now=now, buried_until=buried_until,
                                       last_review=last_reviews.get(row[0])) for row, _, card in planned}
        UserCard.objects.bulk_create(imported.values(), batch_size=1000)
        schedule = dict(created=created, now=now, buried_until=buried_until, last_reviews=last_reviews)
        merged, updated, added_back = _merge_returning(user, returning, **schedule)
        reviews = _reviews(user=user, connection=connection, imported={**imported, **merged},
                           known=_review_times(merged.values()))
    per_deck = Counter(note.anki_deck for _, note, _ in planned)
    return {"cards": len(imported) + added_back, "updated": updated, "reviews": reviews,
            "skipped": card_count - len(imported) - added_back - updated,
            "decks": [{"name": name, "cards": per_deck[name]} for name in sorted(per_deck)], "media": media.report()}


def kit_card_candidates(user):
    """The cards a file may name as the kit's: content cards anyone may add, and the learner's own."""
    return (Card.objects.filter(retired=False).exclude(source_type=SourceType.OWN)
            | Card.objects.filter(source_type=SourceType.OWN, owner=user)).only("id", "source_type", "source_id",
                                                                                 "ordinal")


def kit_cards(user, guids: set[str]) -> dict[tuple[str, int], Card]:
    """The cards of the kit the package's notes name, by (note GUID, card ord) (a cloze note's cards by their
    ordinal, Anki's ord)."""
    found = {}
    for card in kit_card_candidates(user):
        guid = anki_guid(card)
        if guid in guids:
            found[(guid, card.ordinal)] = card
    return found


SCHEDULE_FIELDS = ("state", "step", "stability", "difficulty", "due", "reps", "lapses", "last_review", "suspended",
                   "buried_until", "flag")


def _merge_returning(user, returning: list[tuple[tuple, Card]], *, created: float, now: datetime,
                     buried_until: datetime, last_reviews: dict) -> tuple[dict[int, UserCard], int, int]:
    """Cards the kit exported, back from Anki: ({anki card id: UserCard} whose reviews to merge, cards whose
    schedule was taken from the package, content cards added to the collection)."""
    held = {uc.card_id: uc for uc in UserCard.objects.filter(user=user, card__in=[card for _, card in returning])}
    merged: dict[int, UserCard] = {}
    changed, added = [], []
    for row, card in returning:
        package = _user_card(user, card, row, created=created, now=now, buried_until=buried_until,
                             last_review=last_reviews.get(row[0]))
        mine = held.get(card.pk)
        if mine is None:
            added.append(package)
            merged[row[0]] = package
            continue
        merged[row[0]] = mine
        ours_since = max(filter(None, [mine.added_at, mine.last_review]))
        if _moment(row[13]) > ours_since:  # changed in Anki after the kit last changed it
            for name in SCHEDULE_FIELDS:
                setattr(mine, name, getattr(package, name))
            changed.append(mine)
    UserCard.objects.bulk_create(added, batch_size=1000)
    UserCard.objects.bulk_update(changed, SCHEDULE_FIELDS, batch_size=1000)
    return merged, len(changed), len(added)


def _review_times(user_cards) -> dict[int, set[int]]:
    """The milliseconds of the reviews the kit holds, per UserCard id: the revlog ids its export wrote."""
    times: dict[int, set[int]] = {}
    for user_card_id, reviewed_at in ReviewLog.objects.filter(
            user_card__in=[uc for uc in user_cards if uc.pk]).values_list("user_card_id", "reviewed_at"):
        times.setdefault(user_card_id, set()).add(int(reviewed_at.timestamp() * 1000))
    return times


def _user_card(user, card: Card, row: tuple, *, created: float, now: datetime, buried_until: datetime,
               last_review: datetime | None) -> UserCard:
    anki_type, queue, due, ivl, factor, reps, lapses, flags, data = row[3:12]
    state = ANKI_STATES.get(anki_type, CardState.NEW)
    stability, difficulty = (None, None) if state == CardState.NEW else _memory(data, ivl=ivl, factor=factor)
    due_at = _due(anki_type, queue, due, created=created, now=now)
    if state != CardState.NEW and last_review is None and state == CardState.REVIEW:
        last_review = due_at - timedelta(days=ivl)  # a review card without its log: due one interval after
    return UserCard(user=user, card=card, state=state, step=None if state in (CardState.NEW, CardState.REVIEW) else 0,
                    stability=stability, difficulty=difficulty, due=due_at, reps=reps, lapses=lapses,
                    last_review=None if state == CardState.NEW else last_review, suspended=queue == -1,
                    buried_until=buried_until if queue in (-2, -3) else None, flag=flags & 7, added_at=now)


def _reviews(*, user, connection: sqlite3.Connection, imported: dict[int, UserCard],
             known: dict[int, set[int]] | None = None) -> int:
    """The review log of the cards imported now (rated reviews only: Anki's manual entries have no rating), less
    those the kit holds already (``known``: milliseconds per UserCard; the export bumps a tied id by 1 ms)."""
    known = known or {}
    logs: list[ReviewLog] = []
    previous: dict[int, ReviewLog] = {}
    for review_id, card_id, ease, duration, kind in connection.execute(
            "select id, cid, ease, time, type from revlog where ease between 1 and 4 order by id"):
        user_card = imported.get(card_id)
        if user_card is None:
            continue
        before = previous.get(card_id)
        state_before = REVLOG_STATES.get(kind, CardState.REVIEW) if before is not None else CardState.NEW
        if before is not None:
            before.state_after = state_before
        held = known.get(user_card.pk, ())
        if any(abs(review_id - ms) <= 5 for ms in held):
            previous[card_id] = ReviewLog(state_after=user_card.state)  # the kit's own: kept, not added again
            continue
        log = ReviewLog(review_id=uuid.uuid5(REVIEW_NAMESPACE, f"{user.pk}:{review_id}:{card_id}"), user=user,
                        user_card=user_card, rating=ease, reviewed_at=_moment(review_id / 1000),
                        duration_ms=min(max(int(duration or 0), 0), 86_400_000), state_before=state_before,
                        state_after=user_card.state, before={}, after={})
        logs.append(log)
        previous[card_id] = log
    ReviewLog.objects.bulk_create(logs, batch_size=1000, ignore_conflicts=True)
    return len(logs)
