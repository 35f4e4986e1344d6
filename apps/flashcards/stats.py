"""Review statistics: today, streak, forecast, card counts and average retrievability."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Count, Q

from apps.flashcards import scheduling
from apps.flashcards.models import CardState, ReviewLog, UserCard
from apps.flashcards.presets import scheduler_config
from apps.flashcards.state import day_clock, settings_get

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
