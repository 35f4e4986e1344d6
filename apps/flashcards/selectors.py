"""Reads: the due queue, deck counts and review statistics, all in the learner's local days."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Count, Q
from django.shortcuts import get_object_or_404

from apps.flashcards import scheduling
from apps.flashcards.models import Card, CardState, Deck, ReviewLog, UserCard
from apps.flashcards.services import day_clock, iso, memory_of, scheduler_config, settings_get

LEARN_AHEAD = timedelta(minutes=20)  # like Anki: when nothing else is left, show learning cards due soon
IN_LEARNING = (CardState.LEARNING, CardState.RELEARNING)


def _not_buried(now: datetime) -> Q:
    return Q(buried_until__isnull=True) | Q(buried_until__lte=now)


def _active_cards(*, user, deck: Deck | None, now: datetime):
    queryset = UserCard.objects.filter(user=user, suspended=False).filter(_not_buried(now))
    if deck is not None and deck.slug != "all":
        queryset = queryset.filter(card__decks=deck)
    return queryset


def _done_today(*, user, start: datetime) -> dict[str, int]:
    return ReviewLog.objects.filter(user=user, reviewed_at__gte=start).aggregate(
        new=Count("id", filter=Q(state_before=CardState.NEW)),
        review=Count("id", filter=Q(state_before=CardState.REVIEW)),
        total=Count("id"),
    )


def card_body(user_card: UserCard, *, now: datetime, scheduler) -> dict:
    card: Card = user_card.card
    return {
        "card_id": card.pk, "source_type": card.source_type, "source_id": card.source_id,
        "front": card.front, "back": card.back, "front_html": card.front_html, "back_html": card.back_html,
        "state": user_card.state, "state_name": CardState(user_card.state).label, "due": iso(user_card.due),
        "reps": user_card.reps, "lapses": user_card.lapses, "leech": user_card.leech,
        "source_changed": user_card.source_changed,
        "intervals": scheduling.preview_intervals(memory_of(user_card), now=now, scheduler=scheduler),
    }


def due_queue(*, user, deck_slug: str | None, limit: int, now: datetime) -> dict:
    """Learning cards first, then reviews by due time, then new cards, within today's limits."""
    srs = settings_get(user=user)
    deck = get_object_or_404(Deck, slug=deck_slug) if deck_slug else None
    start, end = day_clock(srs).today_bounds(now)
    done = _done_today(user=user, start=start)
    reviews_left = max(0, srs.max_reviews_per_day - done["review"])
    new_left = max(0, srs.new_cards_per_day - done["new"])
    active = _active_cards(user=user, deck=deck, now=now).select_related("card")

    learning_q = active.filter(state__in=IN_LEARNING, due__lte=now).order_by("due", "id")
    review_q = active.filter(state=CardState.REVIEW, due__lt=end).order_by("due", "id")
    new_q = active.filter(state=CardState.NEW).order_by("due", "id")
    picked = list(learning_q[:limit])
    picked += list(review_q[: min(limit - len(picked), reviews_left)]) if len(picked) < limit else []
    picked += list(new_q[: min(limit - len(picked), new_left)]) if len(picked) < limit else []
    if not picked:
        picked = list(active.filter(state__in=IN_LEARNING, due__lte=now + LEARN_AHEAD).order_by("due", "id")[:limit])

    totals = active.filter(due__lt=end).aggregate(
        learning=Count("id", filter=Q(state__in=IN_LEARNING, due__lte=now)),
        review=Count("id", filter=Q(state=CardState.REVIEW)),
        new=Count("id", filter=Q(state=CardState.NEW)),
    )  # one pass over the (user, suspended, due) index range of today
    counts = {"learning": totals["learning"], "review": min(totals["review"], reviews_left),
              "new": min(totals["new"], new_left)}
    later = active.filter(state__in=IN_LEARNING, due__gt=now, due__lt=end).order_by("due").values_list("due", flat=True)
    scheduler = scheduler_config(srs).scheduler()
    return {
        "now": iso(now), "day_ends_at": iso(end), "counts": counts,
        "done_today": done["total"],
        "next_learning_due": iso(later.first()),
        "cards": [card_body(user_card, now=now, scheduler=scheduler) for user_card in picked],
    }


def deck_list(*, user, now: datetime) -> list[dict]:
    srs = settings_get(user=user)
    end = day_clock(srs).today_bounds(now)[1]
    active = Q(suspended=False) & _not_buried(now)
    per_deck = (
        UserCard.objects.filter(user=user, card__retired=False)
        .values("card__decks")
        .annotate(
            in_collection=Count("id"),
            new=Count("id", filter=active & Q(state=CardState.NEW)),
            learning=Count("id", filter=active & Q(state__in=IN_LEARNING, due__lte=now)),
            review_due=Count("id", filter=active & Q(state=CardState.REVIEW, due__lt=end)),
        )
    )
    counts = {row.pop("card__decks"): row for row in per_deck}
    empty = {"in_collection": 0, "new": 0, "learning": 0, "review_due": 0}
    return [
        {"slug": deck.slug, "title": deck.title, "kind": deck.kind, "total": deck.total,
         **counts.get(deck.pk, empty)}
        for deck in Deck.objects.annotate(total=Count("cards", filter=Q(cards__retired=False)))
    ]


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
