"""A learner's card state and settings as every read and write sees them: the scheduling columns as FSRS memory
and as a JSON-safe snapshot (reviews' before/after, undo, exports), times as ISO strings, and the learner's day
clock. Readers (queue, decks, browse, stats, interchange) and writers (services) both use this module."""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from django.utils.dateparse import parse_datetime

from apps.core.plain_sql import Columns
from apps.flashcards import scheduling
from apps.flashcards.models import CardState, SrsSettings, UserCard

SNAPSHOT_FIELDS = ("state", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses", "suspended",
                   "leech", "buried_until", "source_changed")
DATETIME_FIELDS = {"due", "last_review", "buried_until"}


def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return scheduling.as_utc(moment).isoformat().replace("+00:00", "Z")


SETTINGS_COLUMNS = Columns(SrsSettings, tuple(field.name for field in SrsSettings._meta.concrete_fields))


def settings_get(*, user) -> SrsSettings:
    """The learner's settings, created on first use. A plain statement: every review and queue page reads them."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {SETTINGS_COLUMNS.select('s')} FROM {SrsSettings._meta.db_table} s WHERE s.user_id = %s",
                       [user.pk])
        row = cursor.fetchone()
    if row is not None:
        return SETTINGS_COLUMNS.build(row, connection)
    return SrsSettings.objects.get_or_create(user=user)[0]


def day_clock(srs: SrsSettings) -> scheduling.DayClock:
    return scheduling.DayClock(time_zone=srs.time_zone, rollover_hour=srs.day_rollover_hour)


def memory_of(user_card: UserCard) -> scheduling.Memory:
    return scheduling.Memory(state=user_card.state, step=user_card.step, stability=user_card.stability,
                             difficulty=user_card.difficulty, due=user_card.due, last_review=user_card.last_review)


def snapshot(user_card: UserCard) -> dict:
    """Every scheduling column, JSON-safe; floats round-trip exactly through JSON."""
    return {name: iso(getattr(user_card, name)) if name in DATETIME_FIELDS else getattr(user_card, name)
            for name in SNAPSHOT_FIELDS}


def restore(user_card: UserCard, data: dict) -> None:
    for name in SNAPSHOT_FIELDS:
        value = data.get(name)
        setattr(user_card, name, parse_datetime(value) if name in DATETIME_FIELDS and value else value)


def card_state_body(user_card: UserCard) -> dict:
    body = {"card_id": user_card.card_id, **snapshot(user_card)}
    body["state_name"] = CardState(user_card.state).label
    return body
