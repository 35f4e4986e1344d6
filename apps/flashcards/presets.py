"""Deck option presets, as Anki's: a named set of daily limits (new cards, reviews) and scheduling options (desired
retention, learning and relearning steps, FSRS parameters) that a learner assigns to decks.

- The learner's SrsSettings are the Default preset: the collection's limits and the scheduling of every card no
  preset covers. A preset cannot be assigned to "All cards" (that is the Default's place).
- A deck uses the preset assigned to it, else its parent's (a chapter its part's), else the Default.
- Limits: studying a deck that has a preset (or whose parent has one), the due queue stops at the first limit
  reached among those presets', each counting today's reviews of its deck's cards; elsewhere at the Default's, which
  count all of today's reviews. The deck tree counts each node the same way, so its counts equal the due queue's.
- Scheduling: a card follows the preset of its most specific assigned deck (its chapters first in reading order,
  then its parts, then its topics); a preset without FSRS parameters uses the Default's.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.shortcuts import get_object_or_404

from apps.core.exceptions import InvalidInput
from apps.core.plain_sql import placeholders, probe_join
from apps.flashcards import scheduling
from apps.flashcards.content import hidden_deck_slugs
from apps.flashcards.models import (
    Card,
    CardState,
    Deck,
    DeckKind,
    DeckPreset,
    DeckPresetAssignment,
    ReviewLog,
    UserCard,
)

PRESET_FIELDS = ("name", "new_cards_per_day", "max_reviews_per_day", "desired_retention", "learning_steps",
                 "relearning_steps")
KIND_PRECEDENCE = {DeckKind.CHAPTER: 0, DeckKind.PART: 1, DeckKind.TOPIC: 2}


# --- presets and assignments --------------------------------------------------------------------------------


def preset_get(*, user, preset_id: int) -> DeckPreset:
    """The learner's own preset or 404 (someone else's looks the same as none)."""
    return get_object_or_404(DeckPreset, user=user, pk=preset_id)


def preset_body(preset: DeckPreset) -> dict:
    decks = list(Deck.objects.filter(pk__in=preset.assignments.values("deck_id")).values_list("slug", flat=True))
    return {"id": preset.pk, **{name: getattr(preset, name) for name in PRESET_FIELDS},
            "parameters": preset.parameters, "decks": decks}


def preset_list(*, user) -> list[dict]:
    return [preset_body(preset) for preset in DeckPreset.objects.filter(user=user)]


def _save(preset: DeckPreset) -> DeckPreset:
    try:
        with transaction.atomic():
            preset.save()
    except IntegrityError:
        raise InvalidInput(f"You already have a preset named '{preset.name}'.", field="name") from None
    return preset


def preset_create(*, user, **fields) -> DeckPreset:
    return _save(DeckPreset(user=user, **fields))


def preset_update(*, user, preset_id: int, **changes) -> DeckPreset:
    preset = preset_get(user=user, preset_id=preset_id)
    for name, value in changes.items():
        setattr(preset, name, value)
    return _save(preset)


def preset_delete(*, user, preset_id: int) -> None:
    """Its decks go back to the Default preset (or their parent's)."""
    preset_get(user=user, preset_id=preset_id).delete()


@transaction.atomic
def preset_assign(*, user, deck_slug: str, preset_id: int | None) -> DeckPreset | None:
    """Assigns one of the learner's presets to a deck, or (``preset_id`` None) gives the deck back to its parent's."""
    deck = get_object_or_404(Deck.objects.exclude(slug__in=hidden_deck_slugs()), slug=deck_slug)
    if deck.kind == DeckKind.ALL:
        raise InvalidInput("All cards use the Default preset (your review settings).", field="deck")
    if preset_id is None:
        DeckPresetAssignment.objects.filter(user=user, deck=deck).delete()
        return None
    preset = preset_get(user=user, preset_id=preset_id)
    DeckPresetAssignment.objects.update_or_create(user=user, deck=deck, defaults={"preset": preset})
    return preset


def assigned_presets(*, user) -> dict[int, DeckPreset]:
    """deck id → the preset assigned to it, for one learner (one query)."""
    return {row.deck_id: row.preset for row in DeckPresetAssignment.objects.filter(user=user).select_related("preset")}


# --- scheduling -----------------------------------------------------------------------------------------------


def scheduler_config(srs, preset: DeckPreset | None = None) -> scheduling.SchedulerConfig:
    """The Default's options (SrsSettings), overridden by a preset's where one applies."""
    source = preset or srs
    return scheduling.SchedulerConfig(
        desired_retention=source.desired_retention, learning_steps_min=tuple(source.learning_steps),
        relearning_steps_min=tuple(source.relearning_steps), maximum_interval_days=srs.maximum_interval_days,
        fuzzing=srs.fuzzing, parameters=tuple((preset and preset.parameters) or srs.parameters or ()),
    )


def _rank(deck_id: int, kind: str, order: int, slug: str) -> tuple:
    """Which assigned deck's preset a card follows: the lowest rank (chapter before part before topic)."""
    return KIND_PRECEDENCE.get(kind, 9), order, slug, deck_id


def card_presets(card_ids, *, assigned: dict[int, DeckPreset]) -> dict[int, DeckPreset]:
    """card id → the preset of its most specific assigned deck (cards no preset covers are left out); no query when
    the learner has no presets assigned."""
    if not assigned:
        return {}
    best: dict[int, tuple] = {}
    rows = Card.decks.through.objects.filter(card_id__in=card_ids, deck_id__in=list(assigned)).values_list(
        "card_id", "deck_id", "deck__kind", "deck__order", "deck__slug")
    for card_id, deck_id, kind, order, slug in rows:
        rank = _rank(deck_id, kind, order, slug)
        if card_id not in best or rank < best[card_id]:
            best[card_id] = rank
    return {card_id: assigned[rank[-1]] for card_id, rank in best.items()}


def card_preset(*, user, card_id: int) -> DeckPreset | None:
    """The preset of one card's most specific assigned deck (None: the Default), ranked as ``card_presets`` ranks:
    one plain statement, and the preset's row only when there is one (every review runs this)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT a.deck_id, a.preset_id, d.kind, d."order", d.slug FROM {DeckPresetAssignment._meta.db_table} a '
            f"JOIN {Card.decks.through._meta.db_table} m ON m.deck_id = a.deck_id AND m.card_id = %s "
            f"JOIN {Deck._meta.db_table} d ON d.id = a.deck_id WHERE a.user_id = %s", [card_id, user.pk])
        rows = cursor.fetchall()
    if not rows:
        return None
    preset_id = min(rows, key=lambda row: _rank(row[0], *row[2:]))[1]
    return DeckPreset.objects.get(pk=preset_id)


# --- limits ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    new_left: int
    reviews_left: int


def done_today_by_deck(*, user, start, deck_ids) -> dict[int, dict[str, int]]:
    """Today's new-card and review-card reviews per deck, for the decks given (one grouped statement). Each of
    today's reviews finds its card by the card row's primary key (``probe_join``): a hash join read the learner's
    whole collection for a few hundred reviews (12 ms at 50,000 cards)."""
    if not deck_ids:
        return {}
    deck_ids = list(deck_ids)
    card_of = probe_join(connection, UserCard._meta.db_table, "u", "u.id = r.user_card_id", columns="u.card_id")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT m.deck_id, COUNT(*) FILTER (WHERE r.state_before = %s), COUNT(*) FILTER (WHERE r.state_before = %s) "
            f"FROM {ReviewLog._meta.db_table} r {card_of} JOIN {Card.decks.through._meta.db_table} m "
            f"ON m.card_id = u.card_id AND m.deck_id IN ({placeholders(deck_ids)}) "
            "WHERE r.user_id = %s AND r.reviewed_at >= %s GROUP BY m.deck_id",
            [CardState.NEW, CardState.REVIEW, *deck_ids, user.pk, connection.ops.adapt_datetimefield_value(start)])
        return {deck_id: {"new": new, "review": review} for deck_id, new, review in cursor.fetchall()}


def deck_limits(chain, *, default: Limits, assigned: dict[int, DeckPreset], done: dict[int, dict]) -> Limits:
    """What is left today studying the first deck of ``chain`` (the deck, then its parent). Where the deck or its
    parent has a preset, each such preset's limit minus today's reviews of that deck's cards, the least of them;
    elsewhere the Default's limits, counting all of today's reviews."""
    left: list[Limits] = []
    for deck_id in chain:
        preset = assigned.get(deck_id)
        if preset is not None:
            counts = done.get(deck_id, {"new": 0, "review": 0})
            left.append(Limits(new_left=max(0, preset.new_cards_per_day - counts["new"]),
                               reviews_left=max(0, preset.max_reviews_per_day - counts["review"])))
    if not left:
        return default
    return Limits(new_left=min(limit.new_left for limit in left), reviews_left=min(limit.reviews_left for limit in left))


def deck_chain(deck: Deck | None) -> list[int]:
    """The deck's id and its parent's (a chapter's part), the decks whose presets limit studying it."""
    if deck is None:
        return []
    return [deck.pk] + ([deck.parent_id] if deck.parent_id else [])
