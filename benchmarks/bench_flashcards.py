"""Due-queue and review latency through the API for one learner with 50,000 cards and 200,000 review logs.

Run: .venv/bin/python benchmarks/bench_flashcards.py   (targets: due-queue median < 20 ms; card-browser search and
deck-tree counts median < 30 ms each, the deck tree again with deck option presets assigned). Each search's own
median is printed too, and the load average before and after, since a shared machine's load moves every figure. The
cards sit in a tree of 10 part decks and 50 chapter decks plus "all". Cram (the weakest cards of a chapter and of a
part) is timed without a target.
Uses DATABASE_URL when set (the bench user and its cards are removed afterwards), otherwise a fresh SQLite file
in a temporary folder. Migrates first. Bounded: well under 3 minutes on the project's 2-core machine.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if not os.environ.get("DATABASE_URL"):
    os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp(prefix='bench-flashcards-')}/bench.sqlite3"
os.environ.setdefault("THROTTLE_USER", "1000000/hour")

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from apps.flashcards.models import Card, Deck, ReviewLog, SrsSettings, UserCard  # noqa: E402

CARDS, LOGS, CALLS = 50_000, 200_000, 200
# The card browser's searches: a rare text (11 cards), a chapter's review cards by difficulty, the third page of new
# cards by date added, a difficulty range in the default order (40,000 cards) and a common text within a part
SEARCHES = ("?q=Front+4242", "?deck=bench-chapter-7&state=2&sort=-difficulty", "?state=0&sort=added&page=3",
            "?lapses_min=0&difficulty_min=4&difficulty_max=6&sort=due", "?deck=bench-part-3&q=Back+1")
SOURCE_BASE = 9_000_000_000  # far from real content ids
USERNAME = "bench-flashcards"


def build(now) -> tuple:
    rng = random.Random(1)
    user = get_user_model().objects.create_user(USERNAME, password="bench-password-123")
    SrsSettings.objects.create(user=user, new_cards_per_day=20, max_reviews_per_day=9999)
    Card.objects.bulk_create([Card(source_type="number", source_id=SOURCE_BASE + i, front=f"Front {i}",
                                   back=f"Back {i}", front_html=f"<p>Front {i}</p>", back_html=f"<p>Back {i}</p>",
                                   content_hash=str(i)) for i in range(CARDS)], batch_size=5000)
    card_ids = list(Card.objects.filter(source_id__gte=SOURCE_BASE).order_by("id").values_list("id", flat=True))
    everything = Deck.objects.get_or_create(slug="all", defaults={"title": "All cards", "kind": "all"})[0]
    parts = [Deck.objects.create(slug=f"bench-part-{i}", title=f"Bench part {i}", kind="part", order=900 + i)
             for i in range(10)]
    chapters = [Deck.objects.create(slug=f"bench-chapter-{j}", title=f"Bench chapter {j}", kind="chapter",
                                    order=5000 + j, parent=parts[j // 5]) for j in range(50)]
    through = Card.decks.through
    members = []
    for index, card_id in enumerate(card_ids):
        chapter = chapters[index % 50]
        members += [through(card_id=card_id, deck_id=everything.pk), through(card_id=card_id, deck_id=chapter.pk),
                    through(card_id=card_id, deck_id=chapter.parent_id)]
    through.objects.bulk_create(members, batch_size=10_000)
    user_cards = []
    for index, card_id in enumerate(card_ids):
        kind = index % 10
        if kind == 0:
            state, due, stability = 0, now - timedelta(days=1), None
        elif kind == 1:
            state, due, stability = 1, now + timedelta(minutes=rng.randint(-30, 30)), 1.0
        else:
            state, due, stability = 2, now + timedelta(days=rng.uniform(-20, 300)), rng.uniform(1, 300)
        user_cards.append(UserCard(user=user, card_id=card_id, state=state, step=None if state == 2 else 0,
                                   stability=stability, difficulty=None if stability is None else 5.0, due=due,
                                   last_review=None if state == 0 else now - timedelta(days=3), reps=4 if state else 0,
                                   added_at=now - timedelta(days=400)))
    UserCard.objects.bulk_create(user_cards, batch_size=5000)
    reviewed = [uc for uc in UserCard.objects.filter(user=user).exclude(state=0).values_list("id", flat=True)]
    logs = []
    for i in range(LOGS):
        logs.append(ReviewLog(review_id=uuid.UUID(int=rng.getrandbits(128)), user=user, user_card_id=reviewed[i % len(reviewed)],
                              rating=rng.choice((1, 3, 3, 3, 4)), reviewed_at=now - timedelta(minutes=i * 3 + 60),
                              state_before=2, state_after=2, before={}, after={}))
        if len(logs) == 10_000:
            ReviewLog.objects.bulk_create(logs)
            logs = []
    ReviewLog.objects.bulk_create(logs)
    with django.db.connection.cursor() as cursor:  # what autovacuum does after a bulk load: fresh statistics, and on
        # PostgreSQL the visibility map (index-only scans) and the GIN indexes' pending entries merged into the index
        if django.db.connection.vendor == "postgresql":
            cursor.execute("VACUUM ANALYZE flashcards_usercard, flashcards_card, flashcards_card_decks, "
                           "flashcards_reviewlog, flashcards_userdeckcount, flashcards_deckcardcount")
        cursor.execute("ANALYZE")
    return user


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered):7.2f} ms   p99 {p99:7.2f} ms   (n={len(ordered)})"


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def timed(call) -> float:
    start = time.perf_counter()
    response = call()
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status_code in (200, 201), response.content[:300]
    return elapsed


def main() -> None:
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    get_user_model().objects.filter(username=USERNAME).delete()
    Card.objects.filter(source_id__gte=SOURCE_BASE).delete()
    Deck.objects.filter(slug__startswith="bench-").delete()
    if django.db.connection.vendor == "postgresql":
        # Earlier runs leave their deleted rows behind (a server with autovacuum off never reclaims them) and
        # every index scan then wades through them: runs are only comparable from a clean table.
        with django.db.connection.cursor() as cursor:
            cursor.execute("VACUUM flashcards_usercard, flashcards_card, flashcards_card_decks, flashcards_reviewlog, "
                           "flashcards_userdeckcount, flashcards_deckcardcount")
    now = timezone.now()
    user = build(now)
    print(f"database: {django.db.connection.vendor}; built {CARDS:,} cards, {LOGS:,} logs in "
          f"{time.perf_counter() - started:.1f} s; load average {load_average()} on {os.cpu_count()} CPUs")
    client = Client()
    client.force_login(user)
    try:
        for _ in range(5):  # warm up connections and caches
            client.get("/api/v1/flashcards/due/?limit=20")
        due = [timed(lambda: client.get("/api/v1/flashcards/due/?limit=20")) for _ in range(CALLS)]
        print(f"GET  /flashcards/due/?limit=20         {percentiles(due)}   target median < 20 ms: "
              f"{'met' if statistics.median(due) < 20 else 'MISSED'}")
        queue = client.get(f"/api/v1/flashcards/due/?limit={CALLS}").json()["cards"]
        review = [timed(lambda card=card: client.post(
            f"/api/v1/flashcards/{card['card_id']}/review/", {"rating": 3, "review_id": str(uuid.uuid4())},
            content_type="application/json")) for card in queue[:CALLS]]
        print(f"POST /flashcards/<id>/review/          {percentiles(review)}")
        decks = [timed(lambda: client.get("/api/v1/flashcards/decks/")) for _ in range(20)]
        print(f"GET  /flashcards/decks/                {percentiles(decks)}")
        tree = [timed(lambda: client.get("/api/v1/flashcards/deck-tree/")) for _ in range(40)]
        print(f"GET  /flashcards/deck-tree/            {percentiles(tree)}   target median < 30 ms: "
              f"{'met' if statistics.median(tree) < 30 else 'MISSED'}")
        by_search: dict[str, list[float]] = {query: [] for query in SEARCHES}
        for _ in range(8):
            for query in SEARCHES:
                by_search[query].append(timed(lambda query=query: client.get(f"/api/v1/flashcards/cards/{query}")))
        for query, samples in by_search.items():
            print(f"       {query:<58} median {statistics.median(samples):7.2f} ms")
        search = [sample for samples in by_search.values() for sample in samples]
        print(f"GET  /flashcards/cards/ (search)       {percentiles(search)}   target median < 30 ms: "
              f"{'met' if statistics.median(search) < 30 else 'MISSED'}")
        cram = [timed(lambda query=query: client.get(f"/api/v1/flashcards/cram/{query}"))
                for _ in range(5) for query in ("?deck=bench-chapter-3", "?deck=bench-part-2")]
        print(f"GET  /flashcards/cram/ (chapter, part) {percentiles(cram)}")
        # Deck option presets: one on a part (covering its 5 chapters) and one on a chapter of another part; the
        # tree then counts today's reviews per preset deck and caps each node by its presets
        for slug, name in (("bench-part-1", "Bench strict"), ("bench-chapter-30", "Bench generous")):
            created = client.post("/api/v1/flashcards/presets/", {
                "name": name, "new_cards_per_day": 5, "max_reviews_per_day": 500, "desired_retention": 0.9,
                "learning_steps": [1, 10], "relearning_steps": [10]}, content_type="application/json").json()
            client.put(f"/api/v1/flashcards/decks/{slug}/preset/", {"preset": created["id"]},
                       content_type="application/json")
        preset_tree = [timed(lambda: client.get("/api/v1/flashcards/deck-tree/")) for _ in range(40)]
        print(f"GET  /flashcards/deck-tree/ (presets)  {percentiles(preset_tree)}   target median < 30 ms: "
              f"{'met' if statistics.median(preset_tree) < 30 else 'MISSED'}")
        preset_due = [timed(lambda: client.get("/api/v1/flashcards/due/?limit=20&deck=bench-chapter-6"))
                      for _ in range(40)]
        print(f"GET  /flashcards/due/ (preset deck)    {percentiles(preset_due)}   target median < 20 ms: "
              f"{'met' if statistics.median(preset_due) < 20 else 'MISSED'}")
    finally:
        get_user_model().objects.filter(username=USERNAME).delete()
        Card.objects.filter(source_id__gte=SOURCE_BASE).delete()
        Deck.objects.filter(slug__startswith="bench-").delete()
    print(f"total {time.perf_counter() - started:.1f} s; load average {load_average()} (the timings are only comparable "
          f"between runs at a similar load)")


if __name__ == "__main__":
    main()
