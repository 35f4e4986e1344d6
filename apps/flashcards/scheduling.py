"""FSRS scheduling and day arithmetic as plain functions: dataclasses in, dataclasses out, no DB, no hidden clock.

py-fsrs (``fsrs`` 6.x, FSRS-6) does the scheduling. It has no "new" state, so NEW (0) maps to a fresh
``fsrs.Card`` (Learning, step 0). It accepts only ``datetime.timezone.utc`` datetimes, so every datetime is
normalized with ``as_utc`` at this boundary. Days for limits, streaks and stats are the learner's local days,
starting at their rollover hour in their IANA time zone (py-fsrs itself counts 24-hour periods).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State

NEW, LEARNING, REVIEW, RELEARNING = 0, 1, 2, 3
DEFAULT_PARAMETERS: tuple[float, ...] = tuple(Scheduler().parameters)


@dataclass(frozen=True)
class SchedulerConfig:
    desired_retention: float = 0.9
    learning_steps_min: tuple[int, ...] = (1, 10)
    relearning_steps_min: tuple[int, ...] = (10,)
    maximum_interval_days: int = 36500
    fuzzing: bool = True
    parameters: tuple[float, ...] = ()

    def scheduler(self, *, fuzzing: bool | None = None) -> Scheduler:
        return Scheduler(
            parameters=self.parameters or DEFAULT_PARAMETERS,
            desired_retention=self.desired_retention,
            learning_steps=tuple(timedelta(minutes=m) for m in self.learning_steps_min),
            relearning_steps=tuple(timedelta(minutes=m) for m in self.relearning_steps_min),
            maximum_interval=self.maximum_interval_days,
            enable_fuzzing=self.fuzzing if fuzzing is None else fuzzing,
        )


@dataclass(frozen=True)
class Memory:
    """The scheduling part of a card: what FSRS reads and writes."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None


def as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError("naive datetime: pass an aware datetime")
    return moment.astimezone(UTC)


def to_fsrs(memory: Memory, *, card_id: int, now: datetime) -> FsrsCard:
    if memory.state == NEW:
        return FsrsCard(card_id=card_id, due=as_utc(now))
    return FsrsCard(
        card_id=card_id, state=State(memory.state), step=memory.step, stability=memory.stability,
        difficulty=memory.difficulty, due=as_utc(memory.due),
        last_review=as_utc(memory.last_review) if memory.last_review else None,
    )


def from_fsrs(card: FsrsCard) -> Memory:
    return Memory(state=int(card.state), step=card.step, stability=card.stability, difficulty=card.difficulty,
                  due=card.due, last_review=card.last_review)


def review(memory: Memory, *, rating: int, now: datetime, scheduler: Scheduler, card_id: int = 1,
           duration_ms: int | None = None) -> Memory:
    """The memory after one review; raises ValueError for a rating outside 1..4."""
    if rating not in (1, 2, 3, 4):
        raise ValueError(f"rating must be 1-4, got {rating}")
    now = as_utc(now)
    if memory.last_review is not None and now < memory.last_review:
        now = as_utc(memory.last_review)  # reviews never go back in time (py-fsrs does not check)
    card, _ = scheduler.review_card(to_fsrs(memory, card_id=card_id, now=now), Rating(rating),
                                    review_datetime=now, review_duration=duration_ms)
    return from_fsrs(card)


def preview_intervals(memory: Memory, *, now: datetime, scheduler: Scheduler) -> dict[str, float]:
    """Seconds until due for each rating (unfuzzed, so the buttons are stable)."""
    plain = replace_fuzz(scheduler, False)
    now = as_utc(now)
    result: dict[str, float] = {}
    for rating in Rating:
        after = review(memory, rating=int(rating), now=now, scheduler=plain)
        result[str(int(rating))] = round((after.due - now).total_seconds())
    return result


def replace_fuzz(scheduler: Scheduler, enabled: bool) -> Scheduler:
    if scheduler.enable_fuzzing == enabled:
        return scheduler
    return Scheduler(parameters=scheduler.parameters, desired_retention=scheduler.desired_retention,
                     learning_steps=scheduler.learning_steps, relearning_steps=scheduler.relearning_steps,
                     maximum_interval=scheduler.maximum_interval, enable_fuzzing=enabled)


def retrievability(memory: Memory, *, now: datetime, scheduler: Scheduler) -> float | None:
    if memory.state == NEW or memory.stability is None or memory.last_review is None:
        return None
    return scheduler.get_card_retrievability(to_fsrs(memory, card_id=1, now=now), current_datetime=as_utc(now))


# --- local days ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DayClock:
    """The learner's day: starts at ``rollover_hour`` local time in ``time_zone``."""

    time_zone: str = "UTC"
    rollover_hour: int = 4

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.time_zone)

    def day_of(self, moment: datetime) -> date:
        local = as_utc(moment).astimezone(self.zone)
        return (local - timedelta(hours=self.rollover_hour)).date()

    def start_of(self, day: date) -> datetime:
        local = datetime.combine(day, time(self.rollover_hour), tzinfo=self.zone)
        return local.astimezone(UTC)

    def today_bounds(self, now: datetime) -> tuple[datetime, datetime]:
        today = self.day_of(now)
        return self.start_of(today), self.start_of(today + timedelta(days=1))


def with_parameters(config: SchedulerConfig, parameters: Sequence[float]) -> SchedulerConfig:
    return replace(config, parameters=tuple(parameters))
