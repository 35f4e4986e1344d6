"""Export for Anki: a package (.apkg) and a CSV file Anki's importer reads without choices.

- apkg: one note per card (HTML fields, stable ids, real modification times) in a deck tree
  "kit::part::chapter", except a learner's own cloze note: one Anki Cloze note holding its text with the
  {{c1::...}} marks, whose cards are the kit's cards of that note (Anki's card ord = the kit's ordinal). Each card
  carries the learner's scheduling (type, queue, due, interval, FSRS memory state)
  and the review log as Anki's revlog, so a learner can move to Anki and keep going. A later export of edited
  content updates the notes already in Anki (same guid and id, newer modification time).
- CSV: one plain CSV file, one row per card (a cloze note's cards are one Basic note each, as shown in the kit), with Anki's header lines (``#separator:comma``, ``#html:true``,
  ``#columns:``, ``#deck column:``, ``#tags column:``, ``#guid column:``): Anki's importer reads it without choices
  (one note per card, in the same deck tree as the package) and a spreadsheet gets each card's state.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import itertools
import json
import re
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import genanki
from django.utils.dateparse import parse_datetime

from apps.core.rendering import render_markdown
from apps.courses.models import Chapter
from apps.flashcards import scheduling
from apps.flashcards.content import SOURCE_MODELS
from apps.flashcards.images import render_card_markdown
from apps.flashcards.interchange.collection import learner_cards
from apps.flashcards.models import Card, CardImage, CardState, OwnNote, ReviewLog, SourceType, SrsSettings, UserCard
from apps.flashcards.state import day_clock, iso, settings_get
from apps.quiz.kinds import kind_of
from apps.quiz.models import Question

# Ids: Anki treats note, card and review ids as millisecond timestamps (Check Database renumbers any later than
# tomorrow), so ours are fixed bases in the past plus our primary keys: stable across exports, never 0, and the
# same note id for the same card in every learner's package. Review ids are the review times in milliseconds.
# Days: review due dates are day numbers counted from the package collection's creation day (ANKI_CREATED, with a
# zero creation offset); Anki's importer shifts them by the difference between the two collections' creation
# days, so a card due on the learner's local day D is due on day D in the target collection.

ANKI_ROOT_DECK = "LLM-serving interview kit"
ANKI_MODEL_ID = 1_740_100_001
ANKI_CLOZE_MODEL_ID = 1_740_100_002
ANKI_MODEL_MTIME = 1_740_100_001  # seconds; bump when the note type below changes
ANKI_NOTE_ID_BASE = 1_700_000_000_000
ANKI_CARD_ID_BASE = 1_710_000_000_000
ANKI_DECK_ID_BASE = 1_720_000_000_000
ANKI_CREATED = datetime(2020, 1, 1, 12, 0, tzinfo=UTC)
ANKI_DEFAULT_EASE = 2500
ANKI_CSS = """.card { font-family: system-ui, sans-serif; font-size: 18px; text-align: left; color: black;
  background-color: white; max-width: 46em; margin: 0 auto; }
pre { background: #f4f4f4; padding: .6em; overflow-x: auto; } code { font-size: .92em; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .2em .5em; }
.source { color: #888; font-size: .7em; margin-top: 2em; }
"""

ANKI_MODEL = genanki.Model(
    ANKI_MODEL_ID, "LLM-serving kit card",
    fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Source"}],
    templates=[{"name": "Card 1", "qfmt": "{{Front}}",
                "afmt": "{{FrontSide}}<hr id=answer>{{Back}}<div class=source>{{Source}}</div>"}],
    css=ANKI_CSS,
)

ANKI_CLOZE_MODEL = genanki.Model(
    ANKI_CLOZE_MODEL_ID, "LLM-serving kit cloze",
    fields=[{"name": "Text"}, {"name": "Back Extra"}, {"name": "Source"}],
    templates=[{"name": "Cloze", "qfmt": "{{cloze:Text}}",
                "afmt": "{{cloze:Text}}<br>{{Back Extra}}<div class=source>{{Source}}</div>"}],
    css=ANKI_CSS, model_type=genanki.Model.CLOZE,
)


@dataclass(frozen=True)
class AnkiDeck:
    id: int
    name: str


ROOT = AnkiDeck(ANKI_DECK_ID_BASE, ANKI_ROOT_DECK)


def _deck_title(order: int, title: str) -> str:
    """One level of an Anki deck name: "::" separates levels and control characters are not allowed."""
    clean = re.sub(r"[\x00-\x1f]+", " ", title).replace("::", ":").strip()
    return f"{order:02d} {clean}"


def anki_decks(cards: Iterable[Card]) -> tuple[dict[int, AnkiDeck], list[AnkiDeck]]:
    """Card pk -> its deck (root::part::chapter of the source's first chapter, else the root), and every deck of
    the tree that holds a card, parents included."""
    wanted: dict[str, set[int]] = {}
    for card in cards:
        wanted.setdefault(card.source_type, set()).add(card.source_id)
    chapters_of: dict[tuple[str, int], list[int]] = {}
    for source_type, ids in wanted.items():
        model = SOURCE_MODELS.get(SourceType(source_type))
        if model is None:  # a learner's own card: in the root deck
            continue
        for source_id, chapter_id in model.objects.filter(pk__in=ids).values_list("pk", "chapters"):
            if chapter_id is not None:
                chapters_of.setdefault((source_type, source_id), []).append(chapter_id)
    chapter_ids = {chapter_id for ids in chapters_of.values() for chapter_id in ids}
    chapters = {chapter.pk: chapter for chapter in Chapter.objects.filter(pk__in=chapter_ids).select_related("part")}
    tree: dict[int, AnkiDeck] = {ROOT.id: ROOT}
    result: dict[int, AnkiDeck] = {}
    for card in cards:
        linked = [chapters[pk] for pk in chapters_of.get((card.source_type, card.source_id), []) if pk in chapters]
        if not linked:
            result[card.pk] = ROOT
            continue
        chapter = min(linked, key=lambda c: (c.part.order, c.order, c.pk))
        part_name = f"{ANKI_ROOT_DECK}::{_deck_title(chapter.part.order, chapter.part.title)}"
        part = AnkiDeck(ANKI_DECK_ID_BASE + 1_000_000 + chapter.part.pk, part_name)
        deck = AnkiDeck(ANKI_DECK_ID_BASE + 2_000_000 + chapter.pk,
                        f"{part_name}::{_deck_title(chapter.order, chapter.title)}")
        tree[part.id], tree[deck.id] = part, deck
        result[card.pk] = deck
    return result, sorted(tree.values(), key=lambda d: d.name)


def anki_guid(card: Card) -> str:
    """The GUID of the card's note: the same for every card of a learner's cloze note."""
    return genanki.guid_for("llmkit", f"{card.source_type}:{card.source_id}")


def csv_guid(card: Card) -> str:
    """A CSV row is a note of its own: a cloze note's second and later cards need GUIDs of their own."""
    return anki_guid(card) if card.ordinal == 0 else genanki.guid_for(
        "llmkit", f"{card.source_type}:{card.source_id}:{card.ordinal}")


ANKI_IMAGE_SRC = re.compile(r'src="/api/v1/flashcards/images/([0-9]{1,19})/"')


def question_faces(cards: Iterable[Card]) -> dict[int, tuple[str, str]]:
    """card id -> (front, back) HTML for cards made from questions, as their kind lays them out for a card read
    outside the kit: the front adds what the question offers (options, items, bins, pairs, the unit), the back
    states the right answer before the model answer. In the kit the review screen shows these from the question
    API; an exported card has only its fields, and a bare "select all that apply" cannot be answered."""
    wanted = {card.source_id: card for card in cards if card.source_type == SourceType.QUESTION}
    faces = {}
    for question in Question.objects.filter(pk__in=wanted).only("id", "kind", "key"):
        card, kind = wanted[question.pk], kind_of(question.kind)
        offered, right = kind.card_front(question.key), kind.explanation(question.key)
        front = f"{card.front}\n\n{offered}" if offered else card.front
        back = f"{_markdown_lines(right)}\n\n{card.back}" if right else card.back
        faces[card.pk] = (render_markdown(front), render_markdown(back))
    return faces


def _markdown_lines(text: str) -> str:
    """Plain lines kept as lines in Markdown (a hard break at each)."""
    return "  \n".join(text.splitlines())


def anki_fields(card: Card, media_names: dict[int, str] | None = None,
                faces: dict[int, tuple[str, str]] | None = None) -> list[str]:
    """Front, back and source as HTML (a question card's faces from ``faces``); with ``media_names``, an own card's
    uploaded images point at the package's media files of those names (Anki shows a note's images from its
    collection's media folder)."""
    front, back = (faces or {}).get(card.pk) or (card.front_html or html.escape(card.front),
                                                 card.back_html or html.escape(card.back))
    fields = [front, back, html.escape(f"{card.source_type}:{card.source_id}")]
    if media_names:
        def local(match: re.Match) -> str:
            name = media_names.get(int(match.group(1)))
            return f'src="{name}"' if name else match.group(0)

        fields = [ANKI_IMAGE_SRC.sub(local, field) for field in fields]
    return fields


def anki_media(user, user_cards: list[UserCard]) -> dict[int, tuple[str, bytes]]:
    """The learner's uploaded images that their own cards show: image id -> (media file name, bytes)."""
    ids = {int(found) for uc in user_cards if uc.card.owner_id is not None
           for side in (uc.card.front_html, uc.card.back_html) for found in ANKI_IMAGE_SRC.findall(side)}
    images = CardImage.objects.filter(owner=user, pk__in=[image_id for image_id in ids if image_id < 2**63])
    extension = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/gif": "gif"}
    return {image.pk: (f"llmkit-image-{image.pk}.{extension[image.content_type]}", bytes(image.data))
            for image in images.order_by("pk")}


def anki_tags(user_card: UserCard) -> list[str]:
    return [user_card.card.source_type] + (["leech"] if user_card.leech else [])


def _strip_html(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", text)).strip()


def _field_checksum(text: str) -> int:
    return int(hashlib.sha1(_strip_html(text).encode()).hexdigest()[:8], 16)


def _epoch(moment: datetime) -> int:
    return int(moment.timestamp())


class _AnkiClock:
    """The learner's days (their time zone and rollover hour) as Anki day numbers."""

    def __init__(self, srs: SrsSettings):
        self.clock = day_clock(srs)
        self.origin = ANKI_CREATED.date()

    def day(self, moment: datetime) -> int:
        return max(0, (self.clock.day_of(moment) - self.origin).days)

    def days_between(self, start: datetime, end: datetime) -> int:
        return self.clock.day_of(end).toordinal() - self.clock.day_of(start).toordinal()


def _interval(clock: _AnkiClock, state: int | None, start: str | datetime | None, due: str | datetime | None) -> int:
    """Anki's interval of a card in ``state`` scheduled at ``start`` for ``due``: days for review cards, negative
    seconds for (re)learning steps, 0 for new cards."""
    start, due = _moment(start), _moment(due)
    if state in (None, CardState.NEW) or start is None or due is None:
        return 0
    if state == CardState.REVIEW:
        return max(1, clock.days_between(start, due))
    return -max(1, round((due - start).total_seconds()))


def _moment(value: str | datetime | None) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return parse_datetime(value)


def _difficulty_factor(difficulty: float | None) -> int:
    """Anki's revlog ``factor`` under FSRS: difficulty 1..10 normalized to 100..1100."""
    if difficulty is None:
        return 0
    return int(((difficulty - 1) / 9 + 0.1) * 1000)


REVLOG_KIND = {CardState.NEW: 0, CardState.LEARNING: 0, CardState.REVIEW: 1, CardState.RELEARNING: 2}


def _revlog_rows(user, clock: _AnkiClock) -> tuple[list[tuple], dict[int, int]]:
    """Revlog rows in time order with unique millisecond ids, and each card's last review time in seconds. Reviews in
    the same millisecond take the next free ones: in time order that is one past the last id given (a walk up a set
    of the ids used cost O(n²) when many share a time: 207 s for 88,925 reviews made by one import)."""
    rows, last_seen, last_id = [], {}, -1
    logs = ReviewLog.objects.filter(user=user).select_related("user_card").order_by("reviewed_at", "id")
    for log in logs.iterator():
        review_id = last_id = max(int(scheduling.as_utc(log.reviewed_at).timestamp() * 1000), last_id + 1)
        before, after = log.before or {}, log.after or {}
        card_id = ANKI_CARD_ID_BASE + log.user_card.card_id
        rows.append((
            review_id, card_id, -1, log.rating,
            _interval(clock, log.state_after, log.reviewed_at, after.get("due")),
            _interval(clock, before.get("state"), before.get("last_review"), before.get("due")),
            _difficulty_factor(after.get("difficulty")),
            min(log.duration_ms or 0, 2**31 - 1),
            REVLOG_KIND.get(log.state_before, 0),
        ))
        last_seen[card_id] = review_id // 1000
    return rows, last_seen


def _card_row(user_card: UserCard, *, note_id: int, position: int, deck: AnkiDeck, clock: _AnkiClock,
              srs: SrsSettings, decay: float, last_review_secs: int | None, now: datetime) -> tuple:
    """One row of Anki's cards table carrying the learner's FSRS state."""
    state = user_card.state
    steps = srs.relearning_steps if state == CardState.RELEARNING else srs.learning_steps
    ctype, queue, due, interval, ease, left, data = 0, 0, position, 0, 0, 0, ""
    if state != CardState.NEW:
        ctype, ease = int(state), ANKI_DEFAULT_EASE
        last = user_card.last_review or user_card.added_at
        if state == CardState.REVIEW:
            queue, due = 2, clock.day(user_card.due)
            interval = max(1, clock.days_between(last, user_card.due))
        else:
            left = max(1, len(steps) - (user_card.step or 0))
            interval = 1 if state == CardState.RELEARNING else 0
            if clock.days_between(last, user_card.due) >= 1:
                queue, due = 3, clock.day(user_card.due)  # a step of a day or more: "day learning"
            else:
                queue, due = 1, _epoch(user_card.due)
        memory = {"s": round(user_card.stability, 4), "d": round(user_card.difficulty, 3)} \
            if user_card.stability is not None and user_card.difficulty is not None else {}
        data = json.dumps({**memory, "dr": round(srs.desired_retention, 2), "decay": round(decay, 3),
                           "lrt": last_review_secs if last_review_secs is not None else _epoch(last)},
                          separators=(",", ":"))
    if user_card.suspended:
        queue = -1
    elif user_card.buried_until is not None and user_card.buried_until > now:
        queue = -2
    mtime = _epoch(max(filter(None, [user_card.added_at, user_card.last_review])))
    return (ANKI_CARD_ID_BASE + user_card.card_id, note_id, deck.id, user_card.card.ordinal, mtime, -1,
            ctype, queue, due, interval, ease, user_card.reps, user_card.lapses, left, 0, 0, user_card.flag, data)


@dataclass
class _AnkiNote:
    """One note of the package: a card's own (Basic) or a learner's cloze note with all its exported cards."""

    id: int
    guid: str
    model_id: int
    fields: list[str]
    tags: set[str]
    mtime: int

    def row(self) -> tuple:
        return (self.id, self.guid, self.model_id, self.mtime, -1, f" {' '.join(sorted(self.tags))} ",
                "\x1f".join(self.fields), _strip_html(self.fields[0]), _field_checksum(self.fields[0]), 0, "")


def _cloze_fields(note: OwnNote, card: Card, media_names: dict[int, str]) -> list[str]:
    """Text (the learner's Markdown as HTML, with its {{cN::...}} marks), Back Extra and Source."""
    text = Card(front_html=render_card_markdown(note.front), back_html=render_card_markdown(note.back or ""),
                source_type=card.source_type, source_id=card.source_id)
    return anki_fields(text, media_names)


def anki_notes(user_cards: list[UserCard], media_names: dict[int, str],
               faces: dict[int, tuple[str, str]]) -> tuple[list[_AnkiNote], dict[int, int]]:
    """The package's notes, and each exported card's note id. A learner's cloze note is one Cloze note (id: its
    lowest card's) holding its live cards; its retired cards (a deletion number the learner took out) are not
    exported, as Anki would have no deletion to show them by."""
    own_ids = {uc.card.source_id for uc in user_cards if uc.card.source_type == SourceType.OWN}
    clozes = {note.pk: note for note in OwnNote.objects.filter(pk__in=own_ids, kind="cloze")}
    notes: dict[tuple[str, int], _AnkiNote] = {}
    note_of: dict[int, int] = {}
    for uc in sorted(user_cards, key=lambda each: each.card_id):
        card = uc.card
        cloze = clozes.get(card.source_id) if card.source_type == SourceType.OWN else None
        if cloze is not None and card.retired:
            continue
        key = ("cloze", cloze.pk) if cloze is not None else ("card", card.pk)
        note = notes.get(key)
        if note is None:
            fields = _cloze_fields(cloze, card, media_names) if cloze else anki_fields(card, media_names, faces)
            note = notes[key] = _AnkiNote(ANKI_NOTE_ID_BASE + card.pk, anki_guid(card),
                                          ANKI_CLOZE_MODEL_ID if cloze else ANKI_MODEL_ID, fields, set(), 0)
        note.tags.update(anki_tags(uc))
        note.mtime = max(note.mtime, _epoch(card.updated_at))
        note_of[card.pk] = note.id
    return list(notes.values()), note_of


def export_apkg(*, user, now: datetime | None = None) -> bytes:
    """An Anki package: one note per card in the learner's collection, in a deck tree by part and chapter, with
    each card's scheduling (due, interval, FSRS memory state) and the whole review log."""
    buffer = io.BytesIO()
    write_apkg(user=user, target=buffer, now=now)
    return buffer.getvalue()


def write_apkg(*, user, target: BinaryIO, now: datetime | None = None) -> int:
    """Writes export_apkg's package to ``target`` (a file open for writing: the collection is built in a temporary
    SQLite file on disk, then zipped into it); returns the number of cards it holds."""
    now = now or datetime.now(UTC)
    srs = settings_get(user=user)
    clock = _AnkiClock(srs)
    decay = (srs.parameters or scheduling.DEFAULT_PARAMETERS)[20]
    user_cards = list(learner_cards(user))
    deck_of, decks = anki_decks([uc.card for uc in user_cards])
    revlog, last_seen = _revlog_rows(user, clock)
    media = anki_media(user, user_cards)
    media_names = {image_id: name for image_id, (name, _) in media.items()}
    faces = question_faces(uc.card for uc in user_cards)
    notes, note_of = anki_notes(user_cards, media_names, faces)
    genanki_decks = [genanki.Deck(deck.id, deck.name) for deck in decks]
    genanki_decks[0].add_model(ANKI_MODEL)
    genanki_decks[0].add_model(ANKI_CLOZE_MODEL)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "collection.anki2"
        connection = sqlite3.connect(path)
        try:
            cursor = connection.cursor()
            genanki.Package(genanki_decks).write_to_db(cursor, ANKI_MODEL_MTIME, itertools.count(1))
            (conf,) = cursor.execute("SELECT conf FROM col").fetchone()
            conf = {**json.loads(conf), "schedVer": 2, "rollover": srs.day_rollover_hour, "creationOffset": 0,
                    "curDeck": ROOT.id, "activeDecks": [ROOT.id]}
            cursor.execute("UPDATE col SET crt = ?, mod = ?, conf = ?",
                           (_epoch(ANKI_CREATED), int(now.timestamp() * 1000), json.dumps(conf)))
            cursor.executemany("INSERT INTO notes VALUES (?,?,?,?,?,?,?,?,?,?,?)", [note.row() for note in notes])
            cursor.executemany("INSERT INTO cards VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", [
                _card_row(uc, note_id=note_of[uc.card_id], position=index + 1, deck=deck_of[uc.card_id], clock=clock,
                          srs=srs, decay=decay, last_review_secs=last_seen.get(ANKI_CARD_ID_BASE + uc.card_id),
                          now=now)
                for index, uc in enumerate(user_cards) if uc.card_id in note_of])
            exported = {ANKI_CARD_ID_BASE + card_id for card_id in note_of}
            cursor.executemany("INSERT INTO revlog VALUES (?,?,?,?,?,?,?,?,?)",
                               [row for row in revlog if row[1] in exported])
            connection.commit()
        finally:
            connection.close()
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.write(path, "collection.anki2")
            # Anki's media map: the zip member "0" is the file named media["0"], and so on
            archive.writestr("media", json.dumps({str(index): name for index, (name, _) in enumerate(media.values())}))
            for index, (_, data) in enumerate(media.values()):
                archive.writestr(str(index), data)
    return len(note_of)


CSV_COLUMNS = ["Front", "Back", "Deck", "Tags", "GUID", "Source", "Card id", "State", "Due", "Last review",
               "Stability", "Difficulty", "Reps", "Lapses", "Suspended"]


def export_csv(*, user) -> str:
    return "".join(csv_lines(user=user))


def csv_lines(*, user) -> Iterator[str]:
    """One CSV file, a line at a time (a card's record is one piece), one row (one Anki note) per card, with the
    header lines Anki's importer reads so that it needs no choices: comma separator, HTML fields, the Basic note type
    with Front/Back mapped by column name, the deck (root::part::chapter), tag and GUID columns. The other columns (scheduling) are for spreadsheets;
    Anki leaves them unmapped."""
    user_cards = list(learner_cards(user))
    deck_of, _ = anki_decks([uc.card for uc in user_cards])
    faces = question_faces(uc.card for uc in user_cards)
    yield "#separator:comma\n#html:true\n#notetype:Basic\n"
    yield f"#columns:{','.join(CSV_COLUMNS)}\n"
    for label in ("Deck", "Tags", "GUID"):
        yield f"#{label.lower() if label != 'GUID' else 'guid'} column:{CSV_COLUMNS.index(label) + 1}\n"
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")  # no record starts with "#"
    for uc in user_cards:
        card = uc.card
        front, back, source = anki_fields(card, faces=faces)
        writer.writerow([front, back, deck_of[card.pk].name, " ".join(anki_tags(uc)), csv_guid(card), source,
                         card.pk, CardState(uc.state).label, iso(uc.due), iso(uc.last_review),
                         "" if uc.stability is None else uc.stability,
                         "" if uc.difficulty is None else uc.difficulty, uc.reps, uc.lapses,
                         "yes" if uc.suspended else "no"])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


