"""Reads: the due queue, deck counts and review statistics, all in the learner's local days."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

from django.db import connection, connections
from django.db.models import Case, Count, F, OuterRef, Q, QuerySet, Subquery, TextField, Value, When, Window
from django.shortcuts import get_object_or_404

from apps.core.models import Status
from apps.core.plain_sql import Columns, placeholders, planned_for_their_values, probe_join
from apps.courses.models import Chapter, Part
from apps.flashcards import scheduling
from apps.flashcards.content import CHAPTER_DECK_PREFIX, chapter_slug_of_deck, hidden_deck_slugs, visible_decks
from apps.flashcards.deck_counts import EMPTY_DUE, EMPTY_KEPT, request_counts
from apps.flashcards.models import (
    Card,
    CardState,
    Deck,
    DeckKind,
    DeckPresetAssignment,
    OwnNote,
    ReviewLog,
    SourceType,
    UserCard,
    UserDeckCount,
)
from apps.flashcards.presets import (
    Limits,
    assigned_presets,
    card_presets,
    deck_chain,
    deck_limits,
    done_today_by_deck,
    scheduler_config,
)
from apps.flashcards.services import day_clock, iso, memory_of, settings_get
from apps.glossary.models import Term

LEARN_AHEAD = timedelta(minutes=20)  # like Anki: when nothing else is left, show learning cards due soon
IN_LEARNING = (CardState.LEARNING, CardState.RELEARNING)


def _not_buried(now: datetime) -> Q:
    return Q(buried_until__isnull=True) | Q(buried_until__lte=now)


def _active_cards(*, user, deck: Deck | None, now: datetime):
    queryset = UserCard.objects.filter(user=user, suspended=False).filter(_not_buried(now))
    if deck is not None and deck.slug != "all":
        queryset = queryset.filter(card_id__in=_deck_card_ids(deck_id=deck.pk))
    return queryset


def _deck_card_ids(**deck) -> QuerySet:
    """The ids of a deck's cards, as a subquery: a semi-join on the deck membership table (its (card, deck) index),
    so a LIMITed scan in due order probes each card's membership instead of joining every card of the deck first."""
    return Card.decks.through.objects.filter(**deck).values("card_id")


TODAY_FIGURES = ("new", "review", "total", "again", "timed", "time_ms")


def _today_sql(*, user, start: datetime, deck_counted: bool, deck: Deck | None) -> tuple[str, list]:
    """Today's review figures (new and review cards studied, all reviews, agains, timed reviews and their time), then
    optionally the learner's stored card count for the deck (None: the whole collection) and whether any preset is
    assigned, in one plain statement: the due queue runs it on every request, where building the ORM's aggregate
    and two more queries cost more than the database's work."""
    log = ReviewLog._meta.db_table
    sql = ("SELECT COUNT(*) FILTER (WHERE r.state_before = %s), COUNT(*) FILTER (WHERE r.state_before = %s), "
           "COUNT(*), COUNT(*) FILTER (WHERE r.rating = 1), COUNT(r.duration_ms), COALESCE(SUM(r.duration_ms), 0)")
    params: list = [CardState.NEW, CardState.REVIEW]
    if deck_counted:
        sql += (f", (SELECT c.cards FROM {UserDeckCount._meta.db_table} c WHERE c.user_id = %s AND "
                f"{'c.deck_id IS NULL' if deck is None else 'c.deck_id = %s'} ORDER BY c.id LIMIT 1), "
                f"EXISTS (SELECT 1 FROM {DeckPresetAssignment._meta.db_table} a WHERE a.user_id = %s)")
        params += [user.pk, *([] if deck is None else [deck.pk]), user.pk]
    sql += f" FROM {log} r WHERE r.user_id = %s AND r.reviewed_at >= %s"
    return sql, [*params, user.pk, connection.ops.adapt_datetimefield_value(start)]


def _done_today(*, user, start: datetime) -> dict[str, int]:
    sql, params = _today_sql(user=user, start=start, deck_counted=False, deck=None)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return dict(zip(TODAY_FIGURES, cursor.fetchone(), strict=True))


def _today_and_deck(*, user, start: datetime, deck: Deck | None) -> tuple[dict[str, int], int, bool]:
    """Today's figures, the learner's cards in the deck (None: the whole collection) and whether presets are
    assigned: one round trip."""
    sql, params = _today_sql(user=user, start=start, deck_counted=True, deck=deck)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        *figures, cards, any_preset = cursor.fetchone()
    return dict(zip(TODAY_FIGURES, figures, strict=True)), cards or 0, bool(any_preset)


def _default_limits(srs, done: dict[str, int]) -> Limits:
    """The Default preset's limits (the learner's settings) against all of today's reviews."""
    return Limits(new_left=max(0, srs.new_cards_per_day - done["new"]),
                  reviews_left=max(0, srs.max_reviews_per_day - done["review"]))


# Only what a queue entry shows: the card's stored text and HTML (rendered once, when the card is synced) and
# the learner's scheduling columns; the rest of both rows stays in the database.
QUEUE_FIELDS = ("id", "card_id", "state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses",
                "leech", "source_changed", "flag", "note", "card__id", "card__owner", "card__source_type", "card__source_id", "card__front",
                "card__back", "card__front_html", "card__back_html")


def source_links(cards: list[Card]) -> dict[int, list[dict]]:
    """Where each card comes from, as pages of the site: the question or glossary term, then the chapters it is
    linked to (published chapters of published parts, in reading order). Plain statements (one, two when terms are
    among the cards): every due-queue page runs them, and the ORM's correlated subquery cost more to build than to
    run."""
    links: dict[int, list[dict]] = {card.pk: [] for card in cards}
    if not cards:
        return links
    term_ids = [card.source_id for card in cards if card.source_type == SourceType.TERM]
    with connection.cursor() as cursor:
        terms: dict[int, str] = {}
        if term_ids:
            cursor.execute(f"SELECT id, slug FROM {Term._meta.db_table} WHERE id IN ({placeholders(term_ids)})",
                           term_ids)
            terms = dict(cursor.fetchall())
        for card in cards:
            if card.source_type == SourceType.QUESTION:
                links[card.pk].append({"kind": "question", "title": "Question",
                                       "path": f"/practice/questions/{card.source_id}"})
            elif card.source_type == SourceType.TERM and card.source_id in terms:
                links[card.pk].append({"kind": "term", "title": "Glossary", "path": f"/glossary/{terms[card.source_id]}"})
        card_ids = list(links)
        cursor.execute(
            f"SELECT m.card_id, d.slug, d.title FROM {Card.decks.through._meta.db_table} m "
            f"JOIN {Deck._meta.db_table} d ON d.id = m.deck_id WHERE m.card_id IN ({placeholders(card_ids)}) "
            f"AND d.kind = %s AND EXISTS (SELECT 1 FROM {Chapter._meta.db_table} c JOIN {Part._meta.db_table} p "
            "ON p.id = c.part_id WHERE c.status = %s AND p.status = %s AND c.slug = SUBSTR(d.slug, %s)) "
            'ORDER BY d."order", d.slug',
            [*card_ids, DeckKind.CHAPTER, Status.PUBLISHED, Status.PUBLISHED, len(CHAPTER_DECK_PREFIX) + 1])
        for card_id, slug, title in cursor.fetchall():
            links[card_id].append({"kind": "chapter", "title": title, "path": f"/learn/{chapter_slug_of_deck(slug)}"})
    return links


def card_body(user_card: UserCard, *, now: datetime, scheduler, intervals: dict | None = None,
              links: list[dict] | None = None) -> dict:
    memory = memory_of(user_card)
    if intervals is None:
        preview = scheduling.preview_intervals(memory, now=now, scheduler=scheduler)
    else:  # a per-request memo: every new card (and any identical memory) previews the same intervals
        key = (memory.state,) if memory.state == CardState.NEW else memory
        preview = intervals.get(key)
        if preview is None:
            preview = intervals[key] = scheduling.preview_intervals(memory, now=now, scheduler=scheduler)
    return {**_card_fields(user_card, links=links), "intervals": preview}


def _card_fields(user_card: UserCard, *, links: list[dict] | None) -> dict:
    """What a study screen shows of a card: its text, state, flag, the learner's note and its source links."""
    card: Card = user_card.card
    return {
        "card_id": card.pk, "source_type": card.source_type, "source_id": card.source_id,
        "front": card.front, "back": card.back, "front_html": card.front_html, "back_html": card.back_html,
        "state": user_card.state, "state_name": CardState(user_card.state).label, "due": iso(user_card.due),
        "reps": user_card.reps, "lapses": user_card.lapses, "leech": user_card.leech,
        "source_changed": user_card.source_changed, "flag": user_card.flag, "note": user_card.note,
        "links": links or [], "own": card.owner_id is not None,
    }


def _fetch(queryset, count: int) -> list[UserCard]:
    if count <= 0:
        return []
    return list(queryset.select_related("card").only(*QUEUE_FIELDS).order_by("due", "id")[:count])


def _counts(parts: dict[str, tuple[QuerySet, int | None]]) -> dict[str, int]:
    """Several counts, each capped when a cap is given (min(rows, cap), never counting past it), in one query."""
    if not parts:
        return {}
    selects, params = [], []
    for index, (queryset, cap) in enumerate(parts.values()):
        rows = queryset.order_by().values("id")
        sql, sql_params = (rows[:cap] if cap is not None else rows).query.get_compiler(queryset.db).as_sql()
        selects.append(f"(SELECT COUNT(*) FROM ({sql}) AS counted_{index})")
        params.extend(sql_params)
    with connections[queryset.db].cursor() as cursor:  # all parts read the same database
        cursor.execute(f"SELECT {', '.join(selects)}", params)
        return dict(zip(parts, cursor.fetchone(), strict=True))


SMALL_DECK = 5000  # a deck holding at most this many of the learner's cards is queued from its cards read whole


def _sections_queue(active: QuerySet, *, now: datetime, end: datetime, limit: int, reviews_left: int,
                    new_left: int) -> tuple[list[UserCard], dict[str, int], datetime | None]:
    """The queue's cards, its counts and the next learning due time, from the learner's active cards (``active``):
    each section one LIMITed scan in (due, id) order over its index, the counts the fetches leave open in one query."""
    sections = (  # name, the section's rows, the rows its count covers, today's limit (None: no limit)
        ("learning", active.filter(state__in=IN_LEARNING, due__lte=now), None, None),
        ("review", active.filter(state=CardState.REVIEW, due__lt=end), None, reviews_left),
        ("new", active.filter(state=CardState.NEW), end, new_left),  # counted only when due before the day ends
    )
    counts: dict[str, int] = {}
    to_count: dict[str, tuple[QuerySet, int | None]] = {}
    picked: list[UserCard] = []
    for name, section, due_before, cap in sections:
        want = limit - len(picked) if cap is None else min(limit - len(picked), cap)
        got = _fetch(section, want)
        picked += got
        seen = len(got) if due_before is None else sum(user_card.due < due_before for user_card in got)
        if len(got) < want:  # the fetch saw every row of the section
            counts[name] = seen if cap is None else min(seen, cap)
        elif cap is not None and seen >= cap:  # covers a spent daily limit (cap 0) too
            counts[name] = cap
        else:
            to_count[name] = (section if due_before is None else section.filter(due__lt=due_before), cap)
    counts.update(_counts(to_count))
    if not picked:
        picked = _fetch(active.filter(state__in=IN_LEARNING, due__lte=now + LEARN_AHEAD), limit)

    later = (active.filter(state__in=IN_LEARNING, due__gt=now, due__lt=end).order_by("due", "id")
             .values_list("due", flat=True))
    return picked, counts, later.first()


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


def _microseconds(value) -> int:
    """A due time as microseconds since 1970, exactly: from a datetime (SQLite's raw cursor gives naive UTC, or its
    stored text) or the integer PostgreSQL computed (parsing thousands of timestamps would cost more than the query)."""
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return ((value if value.tzinfo is not None else value.replace(tzinfo=UTC)) - EPOCH) // MICROSECOND


USER_CARD_COLUMNS = Columns(UserCard, tuple(name for name in QUEUE_FIELDS if not name.startswith("card__")))
CARD_COLUMNS = Columns(Card, tuple(name.removeprefix("card__") for name in QUEUE_FIELDS if name.startswith("card__")))


def _queue_cards(ids: list[int]) -> dict[int, UserCard]:
    """The learner's cards by id with their card, the queue's columns only: one plain statement."""
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {USER_CARD_COLUMNS.select('u')}, {CARD_COLUMNS.select('c')} "
                       f"FROM {UserCard._meta.db_table} u JOIN {Card._meta.db_table} c ON c.id = u.card_id "
                       f"WHERE u.id IN ({placeholders(ids)})", ids)
        rows = cursor.fetchall()
    split = len(USER_CARD_COLUMNS)
    fetched = {}
    for row in rows:
        user_card = USER_CARD_COLUMNS.build(row[:split], connection)
        user_card.card = CARD_COLUMNS.build(row[split:], connection)
        fetched[user_card.pk] = user_card
    return fetched


def _small_deck_queue(*, user, deck: Deck | None, now: datetime, end: datetime, limit: int, reviews_left: int,
                      new_left: int) -> tuple[list[UserCard], dict[str, int], datetime | None]:
    """What _sections_queue answers for the deck (None: the whole collection), from its active cards read whole
    (id, state, due) in one query, then sectioned, ordered by (due, id), counted and capped here exactly as there.
    For a chapter of a 50,000-card collection that reads its 1,000 cards instead of scanning each section of the
    whole collection in due order for the few that are the deck's; for a small collection, one query instead of
    five (three section scans, their counts and the next learning time)."""
    at = connection.ops.adapt_datetimefield_value(now)
    due_column = ("(EXTRACT(EPOCH FROM u.due) * 1000000)::bigint" if connection.vendor == "postgresql" else "u.due")
    if deck is None:
        sql = (f"SELECT u.id, u.state, {due_column} FROM flashcards_usercard u WHERE u.user_id = %s "
               "AND u.suspended = %s AND (u.buried_until IS NULL OR u.buried_until <= %s)")
        params = [user.pk, False, at]
    else:  # each membership probes the (user, card) index: no hash over every card
        cards = probe_join(connection, "flashcards_usercard", "u", "u.user_id = %s AND u.card_id = m.card_id AND "
                           "u.suspended = %s AND (u.buried_until IS NULL OR u.buried_until <= %s)",
                           columns="u.id, u.state, u.due")
        sql = f"SELECT u.id, u.state, {due_column} FROM flashcards_card_decks m {cards} WHERE m.deck_id = %s"
        params = [user.pk, False, at, deck.pk]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = [(row_id, state, _microseconds(due)) for row_id, state, due in cursor.fetchall()]
    at, day_end, ahead = _microseconds(now), _microseconds(end), _microseconds(now + LEARN_AHEAD)

    def section(keep) -> list[tuple]:
        return sorted((row for row in rows if keep(row[1], row[2])), key=lambda row: (row[2], row[0]))

    learning = section(lambda state, due: state in IN_LEARNING and due <= at)
    review = section(lambda state, due: state == CardState.REVIEW and due < day_end)
    new = section(lambda state, due: state == CardState.NEW)
    chosen = learning[:limit]
    chosen += review[:max(0, min(limit - len(chosen), reviews_left))]
    chosen += new[:max(0, min(limit - len(chosen), new_left))]
    counts = {"learning": len(learning), "review": min(len(review), reviews_left),
              "new": min(sum(due < day_end for _, _, due in new), new_left)}
    if not chosen:
        chosen = section(lambda state, due: state in IN_LEARNING and due <= ahead)[:limit]
    later = min((due for _, state, due in rows if state in IN_LEARNING and at < due < day_end), default=None)
    fetched = _queue_cards([row[0] for row in chosen])
    return ([fetched[row[0]] for row in chosen if row[0] in fetched], counts,
            None if later is None else EPOCH + later * MICROSECOND)


def due_queue(*, user, deck_slug: str | None, limit: int, now: datetime) -> dict:
    """Learning cards first, then reviews by due time, then new cards, within today's limits.

    Each section is one LIMITed scan in (due, id) order over an index that holds only that section's rows
    (``usercard_learning_due`` for learning/relearning, ``usercard_state_due_id`` for review and new), so the cost
    follows the page size, not the collection size. A section's count comes free when its fetch came back short
    of its limit; otherwise it is counted, capped at what today's limit still allows (only the learning count is
    uncapped, as it has no daily limit), all such counts in one query.
    """
    srs = settings_get(user=user)
    deck = get_object_or_404(Deck, slug=deck_slug) if deck_slug else None
    start, end = day_clock(srs).today_bounds(now)
    whole = None if deck is None or deck.slug == "all" else deck  # "All cards" is the whole collection
    done, cards_in_deck, any_preset = _today_and_deck(user=user, start=start, deck=whole)
    assigned = assigned_presets(user=user) if any_preset else {}
    chain = deck_chain(deck)
    limits = deck_limits(chain, default=_default_limits(srs, done), assigned=assigned,
                         done=done_today_by_deck(user=user, start=start, deck_ids=[d for d in chain if d in assigned]))
    reviews_left, new_left = limits.reviews_left, limits.new_left
    if cards_in_deck <= SMALL_DECK:
        picked, counts, next_due = _small_deck_queue(user=user, deck=whole, now=now, end=end, limit=limit,
                                                     reviews_left=reviews_left, new_left=new_left)
    else:
        with planned_for_their_values(connection):  # each section's scan is a partial index's, or a bounded one
            picked, counts, next_due = _sections_queue(_active_cards(user=user, deck=deck, now=now), now=now,
                                                       end=end, limit=limit, reviews_left=reviews_left,
                                                       new_left=new_left)
    presets = card_presets([user_card.card_id for user_card in picked], assigned=assigned)
    schedulers: dict = {}  # preset id (None: the Default) → (scheduler, interval memo), built once per request

    def preview(user_card: UserCard) -> dict:
        preset = presets.get(user_card.card_id)
        key = preset.pk if preset else None
        if key not in schedulers:  # previews are unfuzzed
            schedulers[key] = (scheduler_config(srs, preset).scheduler(fuzzing=False), {})
        scheduler, intervals = schedulers[key]
        return card_body(user_card, now=now, scheduler=scheduler, intervals=intervals,
                         links=links[user_card.card_id])

    links = source_links([user_card.card for user_card in picked])
    return {
        "now": iso(now), "day_ends_at": iso(end),
        "counts": {name: counts[name] for name in ("learning", "review", "new")},
        "done_today": done["total"],
        "today": {"reviews": done["total"], "again": done["again"], "daily_goal": srs.daily_goal,
                  "timed_reviews": done["timed"], "time_ms": done["time_ms"]},
        "next_learning_due": iso(next_due),
        "cards": [preview(user_card) for user_card in picked],
    }


CRAM_MEMORY_FIELDS = ("card_id", "state", "step", "stability", "difficulty", "due", "last_review", "lapses")


def cram_queue(*, user, deck_slug: str, limit: int, include_new: bool, now: datetime) -> dict:
    """The weakest cards of a deck for a last look before an interview, without touching the schedule (nothing is
    written): reviewed cards by recall probability now (lowest first), then most lapses, then highest difficulty;
    with ``include_new``, cards never studied follow. Suspended and buried cards stay out, as in the due queue."""
    deck = get_object_or_404(Deck.objects.exclude(slug__in=hidden_deck_slugs()), slug=deck_slug)
    active = _active_cards(user=user, deck=deck, now=now)
    scheduler = scheduler_config(settings_get(user=user)).scheduler(fuzzing=False)
    ranked = []
    for card_id, state, step, stability, difficulty, due, last_review, lapses in (
            active.exclude(state=CardState.NEW).exclude(stability__isnull=True).exclude(last_review__isnull=True)
            .values_list(*CRAM_MEMORY_FIELDS).iterator()):
        memory = scheduling.Memory(state=state, step=step, stability=stability, difficulty=difficulty, due=due,
                                   last_review=last_review)
        recall = scheduling.retrievability(memory, now=now, scheduler=scheduler)
        ranked.append((recall, -lapses, -(difficulty or 0), card_id))
    ranked.sort()
    recall_of = {card_id: recall for recall, _, _, card_id in ranked[:limit]}
    chosen = list(recall_of)
    new_cards = active.filter(state=CardState.NEW)
    if include_new and len(chosen) < limit:
        chosen += list(new_cards.order_by("id").values_list("card_id", flat=True)[:limit - len(chosen)])
    rows = {user_card.card_id: user_card for user_card in
            active.filter(card_id__in=chosen).select_related("card").only(*QUEUE_FIELDS)}
    links = source_links([rows[card_id].card for card_id in chosen])
    return {
        "deck": deck.slug, "title": deck.title, "reviewed_cards": len(ranked),
        "new_cards": new_cards.count() if include_new else 0,
        "cards": [{**_card_fields(rows[card_id], links=links[card_id]),
                   "retrievability": None if recall_of.get(card_id) is None else round(recall_of[card_id], 4)}
                  for card_id in chosen],
    }


def deck_list(*, user, now: datetime) -> list[dict]:
    """Every deck the learner may see with its cards (total: those they may see) and, of those in their collection,
    the new, learning and due review cards; retired cards count nowhere. One query (deck_counts.request_counts):
    the stored per-deck counts, less what the clock takes off, plus the cards due now."""
    srs = settings_get(user=user)
    end = day_clock(srs).today_bounds(now)[1]
    kept, due, visible = request_counts(user=user, now=now, end=end)
    rows = []
    for deck in visible_decks():
        stored, clock = kept.get(deck.pk, EMPTY_KEPT), due.get(deck.pk, EMPTY_DUE)
        rows.append({"slug": deck.slug, "title": deck.title, "kind": deck.kind, "total": visible.get(deck.pk, 0),
                     "in_collection": stored["live"], "new": stored["live_new_cards"] - clock["live_buried_new"],
                     "learning": clock["live_learning"], "review_due": clock["live_review"]})
    return rows


def deck_tree(*, user, now: datetime) -> dict:
    """All cards → parts → chapters, then the question topics, each with the counts the due queue filtered by that
    deck would show (learning, review and new, the last two capped by what today's limits still allow: the Default's,
    or those of the presets of the deck and its parent, as in presets.deck_limits).

    A part's deck holds every card of its chapters, so a node's counts are its subtree's cards counted once (a card
    linked to two chapters of a part is one card of the part). The counts that do not depend on the clock (cards in
    the collection, new cards not suspended, cards the learner may see) are stored per deck and kept by the
    database (deck_counts); a request reads them and counts only its due cards (deck_counts.request_counts: one
    query, whatever the collection size). The root counts the whole collection.
    """
    srs = settings_get(user=user)
    start, end = day_clock(srs).today_bounds(now)
    default = _default_limits(srs, _done_today(user=user, start=start))
    assigned = assigned_presets(user=user)
    done_by_deck = done_today_by_deck(user=user, start=start, deck_ids=list(assigned))
    kept, due, visible = request_counts(user=user, now=now, end=end)

    def node(deck: Deck, key: int | None) -> dict:
        limits = deck_limits(deck_chain(deck), default=default, assigned=assigned, done=done_by_deck)
        preset = assigned.get(deck.pk)
        stored, clock = kept.get(key, EMPTY_KEPT), due.get(key, EMPTY_DUE)
        return {"slug": deck.slug, "title": deck.title, "kind": deck.kind, "total": visible.get(deck.pk, 0),
                "in_collection": stored["cards"],
                "counts": {"learning": clock["learning"], "review": min(clock["review"], limits.reviews_left),
                           "new": min(stored["new_cards"] - clock["new_out"], limits.new_left)},
                "preset": None if preset is None else {"id": preset.pk, "name": preset.name},
                "children": []}

    decks = list(visible_decks())
    nodes = {deck.pk: node(deck, None if deck.slug == "all" else deck.pk) for deck in decks}
    roots, parts = [], []
    for deck in decks:  # in (order, slug) order, so children stay in curriculum order
        if deck.kind == DeckKind.PART:
            parts.append(nodes[deck.pk])
        elif deck.parent_id is not None:
            if deck.parent_id in nodes:  # a chapter of a hidden part is hidden with it
                nodes[deck.parent_id]["children"].append(nodes[deck.pk])
        elif deck.kind != DeckKind.ALL:
            roots.append(nodes[deck.pk])
    top = next((nodes[deck.pk] for deck in decks if deck.kind == DeckKind.ALL), None)
    if top is not None:
        top["children"] = parts
        roots.insert(0, top)
    return {"day_ends_at": iso(end), "limits": {"new_left": default.new_left, "reviews_left": default.reviews_left},
            "decks": roots}


# --- card browser -------------------------------------------------------------------------------------------

BROWSE_SORTS = {"due": "due", "added": "added_at", "lapses": "lapses", "reps": "reps", "difficulty": "difficulty",
                "stability": "stability", "last_review": "last_review", "card": "card_id"}
# Orders an index gives for the learner's cards: (user, due, card) and (user, card)
INDEXED_SORTS = {"due", "card"}
BROWSE_FIELDS = ("id", "card_id", "state", "stability", "difficulty", "due", "last_review", "reps", "lapses",
                 "suspended", "leech", "buried_until", "added_at", "flag", "card__owner", "card__source_type", "card__source_id",
                 "card__front", "card__back", "card__retired")


def card_search(*, user, filters: dict, now: datetime) -> QuerySet:
    """The learner's cards matching every given filter, in the requested order (then card id): one SQL query, after
    looking the deck and topic up by slug.

    ``q`` matches a substring of the front or back (case-insensitive; on PostgreSQL a trigram index on each side
    finds them); ``deck`` and ``tag`` (a question topic) test deck membership; ``anki_deck`` keeps the learner's own
    cards imported from that Anki deck or one of its subdecks (as Anki's deck:"A::B" search: "A::B" and
    "A::B::C", not "A::Bx"; the name as written, case included; ``*`` is Anki's wildcard); ``due_before`` /
    ``due_after`` are days in the learner's calendar (due before that day starts, due after it ends). The default
    order (due, then card) is read from the ``usercard_browse_due`` index, so a page need not sort every match.
    """
    queryset = UserCard.objects.filter(user=user)
    if filters.get("q"):
        queryset = queryset.filter(Q(card__front__icontains=filters["q"]) | Q(card__back__icontains=filters["q"]))
    slugs = [filters["deck"]] if filters.get("deck") and filters["deck"] != "all" else []
    slugs += [f"topic-{filters['tag']}"] if filters.get("tag") else []
    if slugs:  # each deck by its id, so the planner knows how many cards each holds
        deck_ids = dict(Deck.objects.filter(slug__in=slugs).values_list("slug", "id"))
        if len(deck_ids) < len(set(slugs)):  # no such deck: no card is in it
            return UserCard.objects.none()
        for slug in slugs:
            queryset = queryset.filter(card_id__in=_deck_card_ids(deck_id=deck_ids[slug]))
    if filters.get("anki_deck"):
        notes = OwnNote.objects.filter(user=user).filter(_in_anki_deck(filters["anki_deck"]))
        queryset = queryset.filter(card__source_type=SourceType.OWN, card__owner=user,
                                   card__source_id__in=notes.values("id"))
    if filters.get("state"):
        queryset = queryset.filter(state__in=filters["state"])
    if filters.get("suspended") is not None:
        queryset = queryset.filter(suspended=filters["suspended"])
    if filters.get("buried") is not None:
        buried = Q(buried_until__gt=now)
        queryset = queryset.filter(buried if filters["buried"] else ~buried | Q(buried_until__isnull=True))
    if filters.get("flag") is not None:
        queryset = queryset.filter(flag=filters["flag"])
    clock = day_clock(settings_get(user=user)) if filters.get("due_before") or filters.get("due_after") else None
    if filters.get("due_before"):
        queryset = queryset.filter(due__lt=clock.start_of(filters["due_before"]))
    if filters.get("due_after"):
        queryset = queryset.filter(due__gte=clock.start_of(filters["due_after"] + timedelta(days=1)))
    if filters.get("lapses_min") is not None:
        queryset = queryset.filter(lapses__gte=filters["lapses_min"])
    if filters.get("difficulty_min") is not None:
        queryset = queryset.filter(difficulty__gte=filters["difficulty_min"])
    if filters.get("difficulty_max") is not None:
        queryset = queryset.filter(difficulty__lte=filters["difficulty_max"])
    sort = filters.get("sort") or "due"
    descending = sort.startswith("-")
    column = F(BROWSE_SORTS[sort.lstrip("-")])
    ordering = column.desc(nulls_last=True) if descending else column.asc(nulls_last=True)
    return queryset.order_by(ordering, "-card_id" if descending else "card_id")


def _in_anki_deck(name: str) -> Q:
    """The deck itself or any deck below it ("A::B" holds "A::B::C"); LIKE's wildcards in a name are escaped.

    ``*`` is Anki's wildcard (deck:"A*"): any run of characters, "::" included, and as in Anki the pattern matches a
    whole name or the part of one before a "::" (its subdecks). Every other character stands for itself (escaped
    for the regular expression, which PostgreSQL and Python's ``re`` read alike here)."""
    if "*" not in name:
        return Q(anki_deck=name) | Q(anki_deck__startswith=f"{name}::")
    glob = ".*".join(re.escape(part) for part in name.split("*"))
    return Q(anki_deck__regex=rf"(?s)\A{glob}(?:::.*)?\Z") & ~Q(anki_deck="")


def anki_decks(*, user) -> list[dict]:
    """The Anki decks the learner's own cards in their collection were imported from, each with the decks above it
    (Anki's tree: "A::B::C" lists "A", "A::B" and "A::B::C"), and how many of those cards each holds with its
    subdecks, by name. Only the learner's own notes are read."""
    in_collection = UserCard.objects.filter(user=user, card__owner=user, card__source_type=SourceType.OWN)
    per_name = (OwnNote.objects.filter(user=user, id__in=in_collection.values("card__source_id"))
                .exclude(anki_deck="").values_list("anki_deck").annotate(cards=Count("id")).order_by())
    cards: dict[str, int] = {}
    for name, count in per_name:
        levels = name.split("::")
        for depth in range(1, len(levels) + 1):
            above = "::".join(levels[:depth])
            cards[above] = cards.get(above, 0) + count
    return [{"name": name, "cards": cards[name]} for name in sorted(cards, key=lambda n: (n.split("::"), n))]


def _with_anki_deck(queryset: QuerySet, *, user) -> QuerySet:
    """Each card with ``anki_deck``: the Anki deck the learner's own card was imported from, read in the same query;
    empty for any other card (and for an own card written here)."""
    note_deck = OwnNote.objects.filter(pk=OuterRef("card__source_id"), user=user).values("anki_deck")[:1]
    return queryset.annotate(anki_deck=Case(
        When(card__source_type=SourceType.OWN, card__owner=user, then=Subquery(note_deck)), default=Value(""),
        output_field=TextField()))


_TAG = re.compile(r"<[^>]*>")


def _row_text(text: str) -> str:
    """A side as a browser row shows it: text only, as Anki's browser shows a field (an imported card's HTML tags
    dropped, its entities read; Markdown stays as written), on one line, the first 300 characters."""
    if "<" in text or "&" in text:
        text = html.unescape(_TAG.sub(" ", text))
    return " ".join(text.split())[:300]


def browse_row(user_card: UserCard, *, now: datetime) -> dict:
    card = user_card.card
    return {
        "card_id": user_card.card_id, "source_type": card.source_type, "source_id": card.source_id,
        "front": _row_text(card.front), "back": _row_text(card.back), "state": user_card.state,
        "state_name": CardState(user_card.state).label, "due": iso(user_card.due),
        "last_review": iso(user_card.last_review), "added_at": iso(user_card.added_at), "reps": user_card.reps,
        "lapses": user_card.lapses, "stability": user_card.stability, "difficulty": user_card.difficulty,
        "suspended": user_card.suspended, "leech": user_card.leech, "retired": card.retired,
        "buried": user_card.buried_until is not None and user_card.buried_until > now,
        "flag": user_card.flag, "own": card.owner_id is not None,
        "anki_deck": getattr(user_card, "anki_deck", None) or "",
    }


def card_browse(*, user, filters: dict, page: int, page_size: int, now: datetime) -> dict:
    """A page of the search: the page's ids first, found from the filters and sort alone (the learner's card rows
    and their indexes, the card's text only where a filter reads it), then what a row shows for just those ids.
    Sorting the matches with their card text joined read the whole card table for a page of new cards sorted by
    date added (26 ms at 50,000 cards against 4 ms). In an order an index gives (``INDEXED_SORTS``) the page is a
    walk that stops after it, and the matches are counted apart, only when the page does not tell how many there
    are (a full page, or an empty one past the first): a rare word's search is not run twice. In any other order
    every match is read and sorted for the page anyway, and a window counts them in the same statement (a count
    over the whole walk would read far more than the page for the indexed orders)."""
    queryset = card_search(user=user, filters=filters, now=now)
    offset = (page - 1) * page_size
    if (filters.get("sort") or "due").lstrip("-") in INDEXED_SORTS:
        page_ids = list(queryset.values_list("id", flat=True)[offset:offset + page_size])
        partial = len(page_ids) < page_size and (page_ids or offset == 0)
        total = offset + len(page_ids) if partial else queryset.count()
    else:  # every match is read to be sorted anyway: the count comes with the page, a window over the same rows
        found = list(queryset.annotate(total=Window(Count("id"))).values_list("id", "total")[offset:offset + page_size])
        page_ids = [row_id for row_id, _ in found]
        total = found[0][1] if found else (0 if offset == 0 else queryset.count())
    shown = UserCard.objects.filter(id__in=page_ids).select_related("card").only(*BROWSE_FIELDS)
    rows = {user_card.pk: user_card for user_card in _with_anki_deck(shown, user=user)}
    return {"count": total, "page": page, "page_size": page_size,  # a row deleted meanwhile is left out
            "results": [browse_row(rows[row_id], now=now) for row_id in page_ids if row_id in rows]}


def card_detail(*, user, card_id: int, now: datetime) -> dict:
    """One card of the learner's: its text, where it comes from, its state and every review with the FSRS memory
    (stability, difficulty) it left behind, oldest first."""
    user_card = get_object_or_404(_with_anki_deck(UserCard.objects.select_related("card"), user=user), user=user,
                                  card_id=card_id)
    srs = settings_get(user=user)
    scheduler = scheduler_config(srs).scheduler(fuzzing=False)
    history = []
    for log in user_card.reviews.order_by("reviewed_at", "id"):
        after = log.after or {}
        before = log.before or {}
        retrievability = None
        if before.get("stability") and before.get("last_review"):
            memory = scheduling.Memory(state=before["state"], step=before.get("step"), stability=before["stability"],
                                       difficulty=before.get("difficulty"), due=log.reviewed_at,
                                       last_review=datetime.fromisoformat(before["last_review"]))
            retrievability = scheduling.retrievability(memory, now=log.reviewed_at, scheduler=scheduler)
        history.append({
            "review_id": str(log.review_id), "reviewed_at": iso(log.reviewed_at), "rating": log.rating,
            "duration_ms": log.duration_ms, "state_before": log.state_before, "state_after": log.state_after,
            "stability": after.get("stability"), "difficulty": after.get("difficulty"), "due": after.get("due"),
            "retrievability_before": None if retrievability is None else round(retrievability, 4),
        })
    decks = list(user_card.card.decks.exclude(slug__in=hidden_deck_slugs()).values("slug", "title", "kind"))
    return {**browse_row(user_card, now=now), "front": user_card.card.front, "back": user_card.card.back,
            "front_html": user_card.card.front_html, "back_html": user_card.card.back_html, "decks": decks,
            "note": user_card.note, "links": source_links([user_card.card])[user_card.card_id], "history": history}


# --- statistics ---------------------------------------------------------------------------------------------

PERIODS = {"7d": 7, "30d": 30, "365d": 365}


def stats(*, user, now: datetime) -> dict:
    srs = settings_get(user=user)
    clock = day_clock(srs)
    today = clock.day_of(now)
    first_day = today - timedelta(days=364)
    logs = ReviewLog.objects.filter(user=user, reviewed_at__gte=clock.start_of(first_day))
    per_day: dict = {}
    retention = {name: [0, 0] for name in PERIODS}
    for reviewed_at, rating, state_before in logs.values_list("reviewed_at", "rating", "state_before").iterator():
        day = clock.day_of(reviewed_at)
        per_day[day] = per_day.get(day, 0) + 1
        if state_before != CardState.REVIEW:
            continue
        for name, days in PERIODS.items():
            if (today - day).days < days:
                retention[name][0] += 1
                retention[name][1] += rating >= 2
    heatmap = [{"date": (first_day + timedelta(days=i)).isoformat(),
                "count": per_day.get(first_day + timedelta(days=i), 0)} for i in range(365)]
    return {
        "today": today.isoformat(),
        "reviews_per_day": heatmap,
        "streak": _streak(per_day, today),
        "true_retention": {name: {"reviews": total, "passed": passed,
                                  "retention": round(passed / total, 4) if total else None}
                           for name, (total, passed) in retention.items()},
        "forecast": _forecast(user=user, clock=clock, today=today),
        "card_counts": _card_counts(user=user),
        "average_retrievability": _average_retrievability(user=user, now=now, srs=srs),
    }


def _streak(per_day: dict, today) -> int:
    """Consecutive days with reviews ending today (or yesterday, while today has none yet)."""
    day = today if per_day.get(today) else today - timedelta(days=1)
    streak = 0
    while per_day.get(day):
        streak += 1
        day -= timedelta(days=1)
    return streak


def _forecast(*, user, clock: scheduling.DayClock, today) -> list[dict]:
    """Cards falling due on each of the next 30 days; overdue cards count for today."""
    horizon = clock.start_of(today + timedelta(days=30))
    counts = [0] * 30
    due_times = UserCard.objects.filter(user=user, suspended=False, due__lt=horizon).exclude(
        state=CardState.NEW).values_list("due", flat=True)
    for due in due_times.iterator():
        counts[max(0, (clock.day_of(due) - today).days)] += 1
    return [{"date": (today + timedelta(days=i)).isoformat(), "count": counts[i]} for i in range(30)]


def _card_counts(*, user) -> dict[str, int]:
    """Active cards by state, plus suspended (leeches included) and the total."""
    return UserCard.objects.filter(user=user).aggregate(
        total=Count("id"), suspended_cards=Count("id", filter=Q(suspended=True)),
        leeches=Count("id", filter=Q(leech=True)),
        **{state.label.lower(): Count("id", filter=Q(state=state, suspended=False)) for state in CardState},
    )


def _average_retrievability(*, user, now: datetime, srs) -> float | None:
    scheduler = scheduler_config(srs).scheduler(fuzzing=False)
    values = []
    rows = UserCard.objects.filter(user=user).exclude(state=CardState.NEW).exclude(stability__isnull=True)
    for state, stability, difficulty, last_review, due in rows.values_list(
            "state", "stability", "difficulty", "last_review", "due").iterator():
        memory = scheduling.Memory(state=state, step=None if state == CardState.REVIEW else 0, stability=stability,
                                   difficulty=difficulty, due=due, last_review=last_review)
        value = scheduling.retrievability(memory, now=now, scheduler=scheduler)
        if value is not None:
            values.append(value)
    return round(sum(values) / len(values), 4) if values else None
