"""Writes on a learner's collection: settings, adding decks, reviewing, undo, suspend and bury.

Reviews are serialized per card with ``select_for_update`` on the UserCard row and made idempotent by the unique
``ReviewLog.review_id``: a replay (even a concurrent one) returns the stored answer and changes nothing.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import cast

from django.db import IntegrityError, connection, transaction
from django.db.models import Field
from django.http import Http404
from django.shortcuts import get_object_or_404

from apps.core.exceptions import Conflict, InvalidInput, NotFound
from apps.core.plain_sql import Columns
from apps.flashcards import scheduling
from apps.flashcards.content import hidden_deck_slugs
from apps.flashcards.models import NOTE_MAX_CHARS, CardState, Deck, Flag, ReviewLog, SrsSettings, UndoneReview, UserCard
from apps.flashcards.presets import card_preset, scheduler_config
from apps.flashcards.state import (
    SNAPSHOT_FIELDS,
    card_state_body,
    day_clock,
    memory_of,
    restore,
    settings_get,
    snapshot,
)

# --- settings -----------------------------------------------------------------------------------------------


def settings_update(*, user, **changes) -> SrsSettings:
    srs = settings_get(user=user)
    for name, value in changes.items():
        setattr(srs, name, value)
    srs.save()
    return srs


# --- collection ---------------------------------------------------------------------------------------------


def user_card_get(*, user, card_id: int, lock: bool = False) -> UserCard:
    """The learner's own card or 404: someone else's card and a card not in the collection look the same."""
    queryset = UserCard.objects.select_for_update() if lock else UserCard.objects
    return get_object_or_404(queryset, user=user, card_id=card_id)


def deck_add(*, user, slug: str, now: datetime) -> int:
    deck = get_object_or_404(Deck.objects.exclude(slug__in=hidden_deck_slugs()), slug=slug)
    owned = UserCard.objects.filter(user=user).values("card_id")
    card_ids = list(deck.cards.filter(retired=False, owner__isnull=True)  # another learner's own cards stay theirs
                    .exclude(id__in=owned).order_by("id").values_list("id", flat=True))
    UserCard.objects.bulk_create(
        [UserCard(user=user, card_id=card_id, due=now, added_at=now) for card_id in card_ids],
        ignore_conflicts=True, batch_size=1000,
    )
    return len(card_ids)


@transaction.atomic
def card_suspend(*, user, card_id: int, suspended: bool) -> UserCard:
    user_card = user_card_get(user=user, card_id=card_id, lock=True)
    if not suspended and user_card.card.retired:
        raise Conflict("This card's source was removed from the curriculum; it stays suspended.")
    user_card.suspended = suspended
    user_card.suspended_by_retirement = False  # the learner's own choice: it outlasts a retirement
    user_card.save(update_fields=["suspended", "suspended_by_retirement"])
    return user_card


@transaction.atomic
def card_bury(*, user, card_id: int, now: datetime, buried: bool = True) -> UserCard:
    """Buries the card until the learner's next day starts, or (``buried=False``) shows it again now."""
    user_card = user_card_get(user=user, card_id=card_id, lock=True)
    user_card.buried_until = day_clock(settings_get(user=user)).today_bounds(now)[1] if buried else None
    user_card.save(update_fields=["buried_until"])
    return user_card


def card_flag(*, user, card_id: int, flag: int) -> UserCard:
    """Sets one of Anki's flag colours (1-7) on the learner's card, or clears it (0)."""
    if flag not in Flag.values:
        raise InvalidInput(f"A flag is 0 (none) to 7; got {flag}.", field="flag")
    user_card = user_card_get(user=user, card_id=card_id)
    user_card.flag = flag
    user_card.save(update_fields=["flag"])
    return user_card


def card_note_set(*, user, card_id: int, note: str) -> UserCard:
    """The learner's private note on a card (plain text, shown only to them); an empty note removes it."""
    note = note.strip()
    if len(note) > NOTE_MAX_CHARS:
        raise InvalidInput(f"A note is at most {NOTE_MAX_CHARS} characters.", field="note")
    user_card = user_card_get(user=user, card_id=card_id)
    user_card.note = note
    user_card.save(update_fields=["note"])
    return user_card


def card_extras_body(user_card: UserCard) -> dict:
    return {"card_id": user_card.card_id, "flag": user_card.flag, "flag_name": Flag(user_card.flag).label,
            "note": user_card.note}


# --- reviews ------------------------------------------------------------------------------------------------


def _stored_answer(*, user, card_id: int, review_id: uuid.UUID) -> dict | None:
    found = ReviewLog.objects.filter(review_id=review_id).values_list("user_id", "user_card__card_id", "after").first()
    if found is None:
        return None
    if found[:2] != (user.pk, card_id):
        raise Conflict("This review_id was already used for another review.")
    return found[2]


def card_review(*, user, card_id: int, rating: int, review_id: uuid.UUID, now: datetime,
                duration_ms: int | None = None) -> tuple[dict, bool]:
    """Applies one FSRS review; returns (answer, replayed). A known review_id returns the stored answer."""
    try:
        return _apply_review(user=user, card_id=card_id, rating=rating, review_id=review_id, now=now,
                             duration_ms=duration_ms), False
    except IntegrityError:
        # The review_id is taken (review ids are unique): a retry of a committed review, or a concurrent request that
        # committed it first. The transaction rolled back, so the card is as that review left it; its answer stands.
        stored = _stored_answer(user=user, card_id=card_id, review_id=review_id)
        if stored is None:
            raise
        return stored, True


USER_CARD_ROW = Columns(UserCard, tuple(field.name for field in UserCard._meta.concrete_fields))
# The snapshot fields are UserCard's own columns: concrete fields (never a reverse relation), each with its column set.
SCHEDULE_COLUMNS = tuple(cast(Field, UserCard._meta.get_field(name)) for name in SNAPSHOT_FIELDS)


def _locked_card(*, user, card_id: int) -> UserCard:
    """``user_card_get(lock=True)`` as one plain statement (every review runs it): the learner's card, its row locked
    until the transaction ends where the database locks rows, or 404 as there."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {USER_CARD_ROW.select('u')} FROM {UserCard._meta.db_table} u "
                       f"WHERE u.user_id = %s AND u.card_id = %s{lock}", [user.pk, card_id])
        row = cursor.fetchone()
    if row is None:
        raise Http404(f"No {UserCard._meta.object_name} matches the given query.")
    return cast(UserCard, USER_CARD_ROW.build(row, connection))  # Columns(UserCard) builds UserCards


def _save_schedule(user_card: UserCard) -> None:
    """``user_card.save(update_fields=SNAPSHOT_FIELDS)`` as one plain statement, each value prepared by its field as
    the ORM prepares it (no signal handler listens to these rows; the deck counts are kept by the database)."""
    assignments = ", ".join(f"{connection.ops.quote_name(cast(str, field.column))} = %s" for field in SCHEDULE_COLUMNS)
    values = [field.get_db_prep_save(getattr(user_card, field.attname), connection) for field in SCHEDULE_COLUMNS]
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {UserCard._meta.db_table} SET {assignments} WHERE id = %s", [*values, user_card.pk])


@transaction.atomic
def _apply_review(*, user, card_id: int, rating: int, review_id: uuid.UUID, now: datetime,
                  duration_ms: int | None) -> dict:
    user_card = _locked_card(user=user, card_id=card_id)
    srs = settings_get(user=user)
    before = snapshot(user_card)
    scheduler = scheduler_config(srs, card_preset(user=user, card_id=card_id)).scheduler()  # its deck preset's
    memory = scheduling.review(memory_of(user_card), rating=rating, now=now, scheduler=scheduler,
                               card_id=card_id, duration_ms=duration_ms)
    _apply_memory(user_card, memory, rating=rating, leech_threshold=srs.leech_threshold)
    _save_schedule(user_card)
    answer = {"review_id": str(review_id), **card_state_body(user_card)}
    ReviewLog.objects.create(
        review_id=review_id, user=user, user_card=user_card, rating=rating,
        reviewed_at=cast(datetime, memory.last_review),  # a review stamps its time: the memory after one has it
        duration_ms=duration_ms, state_before=before["state"], state_after=user_card.state, before=before,
        after=answer,
    )
    return answer


def _apply_memory(user_card: UserCard, memory: scheduling.Memory, *, rating: int, leech_threshold: int) -> None:
    lapsed = user_card.state == CardState.REVIEW and rating == 1
    user_card.state, user_card.step = memory.state, memory.step
    user_card.stability, user_card.difficulty = memory.stability, memory.difficulty
    user_card.due, user_card.last_review = memory.due, memory.last_review
    user_card.reps += 1
    user_card.buried_until = None
    user_card.source_changed = False  # the learner has now seen the updated card
    if lapsed:
        user_card.lapses += 1
        if user_card.lapses >= leech_threshold:
            user_card.suspended = user_card.leech = True


@transaction.atomic
def card_undo(*, user, card_id: int, review_id: uuid.UUID | None = None) -> dict:
    """Restores the state from before the card's last review exactly and removes that review from the log.

    With ``review_id`` (the review the client means to undo) the call is idempotent: a retry of an undo that
    already happened returns the first answer again instead of undoing the review before it, and a review that
    is no longer the card's last is refused. Without it, the card's last review is undone (the older form).
    """
    user_card = user_card_get(user=user, card_id=card_id, lock=True)
    log = user_card.reviews.order_by("-reviewed_at", "-id").first()
    if review_id is not None and (log is None or log.review_id != review_id):
        undone = UndoneReview.objects.filter(review_id=review_id, user=user, user_card=user_card).first()
        if undone is not None:
            return undone.answer
        if user_card.reviews.filter(review_id=review_id).exists():
            raise Conflict("Only the card's last review can be undone.")
        raise Conflict("This card has no review with this review_id to undo.")
    if log is None:
        raise Conflict("There is no review of this card to undo.")
    if not log.before:
        raise Conflict("This review was imported without the card's state before it; it cannot be undone.")
    restore(user_card, log.before)
    user_card.save()
    answer = {"undone_review_id": str(log.review_id), **card_state_body(user_card)}
    UndoneReview.objects.update_or_create(review_id=log.review_id,
                                          defaults={"user": user, "user_card": user_card, "answer": answer})
    log.delete()
    return answer


# --- bulk actions (card browser) ----------------------------------------------------------------------------

BULK_ACTIONS = ("suspend", "unsuspend", "bury", "unbury", "reset", "reschedule")


@transaction.atomic
def cards_bulk(*, user, card_ids: list[int], action: str, now: datetime, due_date=None) -> dict[str, int]:
    """One UPDATE over the learner's chosen cards. Every id must name a card of the learner's collection (else
    NotFound, and nothing changes). Cards whose source left the curriculum stay suspended (``skipped``)."""
    chosen = UserCard.objects.filter(user=user, card_id__in=card_ids)
    found = chosen.count()
    if found != len(set(card_ids)):
        raise NotFound("Some of these cards are not in your collection.")
    skipped = 0
    if action == "suspend":
        updated = chosen.update(suspended=True, suspended_by_retirement=False)  # the learner's own choice
    elif action == "unsuspend":
        skipped = chosen.filter(card__retired=True).count()
        updated = chosen.filter(card__retired=False).update(suspended=False, leech=False)
    elif action == "bury":
        updated = chosen.update(buried_until=day_clock(settings_get(user=user)).today_bounds(now)[1])
    elif action == "unbury":
        updated = chosen.update(buried_until=None)
    elif action == "reset":  # back to new, due now; the review log is kept
        updated = chosen.update(state=CardState.NEW, step=0, stability=None, difficulty=None, due=now,
                                last_review=None, reps=0, lapses=0, leech=False, buried_until=None)
    elif action == "reschedule":
        if due_date is None:
            raise InvalidInput("A date is needed to reschedule.", field="due")
        start = day_clock(settings_get(user=user)).start_of(due_date)
        updated = chosen.update(due=start, buried_until=None)
    else:
        raise InvalidInput(f"Unknown action '{action}'; one of {', '.join(BULK_ACTIONS)}.", field="action")
    return {"updated": updated, "skipped": skipped}
