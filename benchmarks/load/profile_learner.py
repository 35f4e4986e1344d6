"""In-process cost of a learner's requests in the load benchmark's mix: the flashcard pair (the due queue and a
review) and the practice flow (start a session of two open questions, answer one, read a summary): the statements
each runs and the median wall and CPU time over N requests through Django's test client (the whole middleware and
DRF stack, no network, no gunicorn), for one of the load benchmark's learners.

    LOAD_DATA=var/load/load-data.json DATABASE_URL=postgres://postgres@127.0.0.1:5432/llmkit_load \\
        .venv/bin/python benchmarks/load/profile_learner.py [--requests 100] [--learner 7] [--flows "flashcards practice"]

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
    parser.add_argument("--flows", default="flashcards practice")
    args = parser.parse_args()
    learner = json.loads(Path(os.environ.get("LOAD_DATA", "var/load/load-data.json")).read_text())["learners"][
        args.learner]
    client = Client(HTTP_AUTHORIZATION=f"Token {learner['token']}", HTTP_HOST="127.0.0.1")
    rng = random.Random(1)

    def due():
        response = client.get("/api/v1/flashcards/due/?limit=20")
        assert response.status_code == 200, response.content[:300]

    def post(path: str, body: dict) -> dict:
        response = client.post(path, json.dumps(body), content_type="application/json")
        assert response.status_code in (200, 201), (response.status_code, response.content[:300])
        return response.json()

    def review():
        body = {"rating": rng.choice([2, 3, 3, 4]), "review_id": str(uuid.uuid4())}
        post(f"/api/v1/flashcards/{rng.choice(learner['cards'])}/review/", body)

    def start() -> dict:
        return post("/api/v1/practice/sessions/", {"size": 2, "kind": ["open"]})

    # Each answer needs a session of its own (measure() calls it N + 2 times): started before the answers are timed.
    unanswered = [start() for _ in range(args.requests + 2)] if "practice" in args.flows else []
    answered: list[str] = []

    def answer():
        session = unanswered.pop()
        post(f"/api/v1/practice/sessions/{session['id']}/answers/",
             {"question": session["questions"][0]["id"], "self_rating": "good"})
        answered.append(session["id"])

    def summary():
        response = client.get(f"/api/v1/practice/sessions/{answered[0]}/summary/")
        assert response.status_code == 200, response.content[:300]

    print(f"load average {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    if "flashcards" in args.flows:
        measure("GET /flashcards/due/?limit=20", due, args.requests)
        measure("POST /flashcards/<id>/review/", review, args.requests)
    if "practice" in args.flows:
        measure("POST /practice/sessions/", start, args.requests)
        measure("POST /practice/sessions/<id>/answers/", answer, args.requests)
        measure("GET /practice/sessions/<id>/summary/", summary, args.requests)


if __name__ == "__main__":
    main()
