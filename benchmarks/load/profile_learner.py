"""In-process cost of a learner's two flashcard requests, the due queue and a review: the statements each runs and
the median wall and CPU time over N requests through Django's test client (the whole middleware and DRF stack, no
network, no gunicorn), for one of the load benchmark's learners.

    LOAD_DATA=var/load/load-data.json DATABASE_URL=postgres://postgres@127.0.0.1:5432/llmkit_load \\
        .venv/bin/python benchmarks/load/profile_learner.py [--requests 100] [--learner 7]

Needs the load database and learners that ``run.sh`` prepares (``prepare.py``). Each review is a new rating of one
of the learner's cards, so the learner's schedule moves as in the load benchmark.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("THROTTLE_USER", "100000000/hour")

import django

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402


def measure(name: str, call, requests: int) -> None:
    call()  # warm: connection, caches
    with CaptureQueriesContext(connection) as captured:
        call()
    statements = list(captured.captured_queries)  # now: every request resets the connection's query log
    wall, cpu = [], []
    for _ in range(requests):
        started, started_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    print(f"{name:<34} {len(statements):>2} statements   median wall {statistics.median(wall):6.2f} ms"
          f"   median CPU {statistics.median(cpu):6.2f} ms   (n={requests})")
    for query in statements:
        print(f"    {' '.join(query['sql'].split())[:110]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--learner", type=int, default=7)
    args = parser.parse_args()
    learner = json.loads(Path(os.environ.get("LOAD_DATA", "var/load/load-data.json")).read_text())["learners"][
        args.learner]
    client = Client(HTTP_AUTHORIZATION=f"Token {learner['token']}", HTTP_HOST="127.0.0.1")
    rng = random.Random(1)

    def due():
        response = client.get("/api/v1/flashcards/due/?limit=20")
        assert response.status_code == 200, response.content[:300]

    def review():
        body = {"rating": rng.choice([2, 3, 3, 4]), "review_id": str(uuid.uuid4())}
        response = client.post(f"/api/v1/flashcards/{rng.choice(learner['cards'])}/review/", json.dumps(body),
                               content_type="application/json")
        assert response.status_code in (200, 201), response.content[:300]

    print(f"load average {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    measure("GET /flashcards/due/?limit=20", due, args.requests)
    measure("POST /flashcards/<id>/review/", review, args.requests)


if __name__ == "__main__":
    main()
