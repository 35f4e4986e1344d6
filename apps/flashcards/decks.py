"""The deck list and deck tree with their due counts."""

from __future__ import annotations

from datetime import datetime

from apps.flashcards.content import visible_decks
from apps.flashcards.deck_counts import EMPTY_DUE, EMPTY_KEPT, request_counts
from apps.flashcards.models import Deck, DeckKind
from apps.flashcards.presets import assigned_presets, deck_chain, deck_limits, done_today_by_deck
from apps.flashcards.queue import default_limits, done_today
from apps.flashcards.state import day_clock, iso, settings_get


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
    default = default_limits(srs, done_today(user=user, start=start))
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
