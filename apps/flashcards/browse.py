"""The card browser: search, sort, rows and one card's detail."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta

from django.db.models import Case, Count, F, OuterRef, Q, QuerySet, Subquery, TextField, Value, When, Window
from django.shortcuts import get_object_or_404

from apps.flashcards import scheduling
from apps.flashcards.content import hidden_deck_slugs
from apps.flashcards.models import CardState, Deck, OwnNote, SourceType, UserCard
from apps.flashcards.presets import scheduler_config
from apps.flashcards.queue import deck_card_ids, source_links
from apps.flashcards.state import day_clock, iso, settings_get

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
            queryset = queryset.filter(card_id__in=deck_card_ids(deck_id=deck_ids[slug]))
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
    if filters.get("due_before") or filters.get("due_after"):
        clock = day_clock(settings_get(user=user))
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
