"""The due queue and cram queue: what the learner reviews next, in their local day, within deck limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import cast

from django.db import connection, connections
from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404

from apps.core.models import Status
from apps.core.plain_sql import Columns, placeholders, planned_for_their_values, probe_join
from apps.courses.models import Chapter, Part
from apps.flashcards import scheduling
from apps.flashcards.content import CHAPTER_DECK_PREFIX, chapter_slug_of_deck, hidden_deck_slugs
from apps.flashcards.models import (
    Card,
    CardState,
    Deck,
    DeckKind,
    DeckPresetAssignment,
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
from apps.flashcards.state import day_clock, iso, memory_of, settings_get
from apps.glossary.models import Term

LEARN_AHEAD = timedelta(minutes=20)  # like Anki: when nothing else is left, show learning cards due soon
IN_LEARNING = (CardState.LEARNING, CardState.RELEARNING)


def _not_buried(now: datetime) -> Q:
    return Q(buried_until__isnull=True) | Q(buried_until__lte=now)


def _active_cards(*, user, deck: Deck | None, now: datetime):
    queryset = UserCard.objects.filter(user=user, suspended=False).filter(_not_buried(now))
    if deck is not None and deck.slug != "all":
        queryset = queryset.filter(card_id__in=deck_card_ids(deck_id=deck.pk))
    return queryset


def deck_card_ids(**deck) -> QuerySet:
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


def done_today(*, user, start: datetime) -> dict[str, int]:
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


def default_limits(srs, done: dict[str, int]) -> Limits:
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
    preview: dict[str, float] | None
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
    fetched: dict[int, UserCard] = {}
    for row in rows:  # Columns(Model).build gives instances of that model (typed as any model)
        user_card = cast(UserCard, USER_CARD_COLUMNS.build(row[:split], connection))
        user_card.card = cast(Card, CARD_COLUMNS.build(row[split:], connection))
        fetched[user_card.pk] = user_card
    return fetched


def _small_deck_queue(*, user, deck: Deck | None, now: datetime, end: datetime, limit: int, reviews_left: int,
                      new_left: int) -> tuple[list[UserCard], dict[str, int], datetime | None]:
    """What _sections_queue answers for the deck (None: the whole collection), from its active cards read whole
    (id, state, due) in one query, then sectioned, ordered by (due, id), counted and capped here exactly as there.
    For a chapter of a 50,000-card collection that reads its 1,000 cards instead of scanning each section of the
    whole collection in due order for the few that are the deck's; for a small collection, one query instead of
    five (three section scans, their counts and the next learning time)."""
    now_param = connection.ops.adapt_datetimefield_value(now)
    due_column = ("(EXTRACT(EPOCH FROM u.due) * 1000000)::bigint" if connection.vendor == "postgresql" else "u.due")
    if deck is None:
        sql = (f"SELECT u.id, u.state, {due_column} FROM flashcards_usercard u WHERE u.user_id = %s "
               "AND u.suspended = %s AND (u.buried_until IS NULL OR u.buried_until <= %s)")
        params = [user.pk, False, now_param]
    else:  # each membership probes the (user, card) index: no hash over every card
        cards = probe_join(connection, "flashcards_usercard", "u", "u.user_id = %s AND u.card_id = m.card_id AND "
                           "u.suspended = %s AND (u.buried_until IS NULL OR u.buried_until <= %s)",
                           columns="u.id, u.state, u.due")
        sql = f"SELECT u.id, u.state, {due_column} FROM flashcards_card_decks m {cards} WHERE m.deck_id = %s"
        params = [user.pk, False, now_param, deck.pk]
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
    limits = deck_limits(chain, default=default_limits(srs, done), assigned=assigned,
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
                   "retrievability": None if (recall := recall_of.get(card_id)) is None else round(recall, 4)}
                  for card_id in chosen],
    }
