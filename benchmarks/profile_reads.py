"""Per-request cost of the public reads, in process (no network, no gunicorn): median wall time over N requests
through Django's test client, anonymous and signed in (token), and optionally a cProfile of one endpoint.

    DATABASE_URL=postgres://... CACHE_URL=redis://... .venv/bin/python benchmarks/profile_reads.py [--profile PATH]

Needs a database with the content loaded (``manage.py load_content``); creates one user ``bench-reader``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
os.environ.setdefault("THROTTLE_ANON", "100000000/hour")
os.environ.setdefault("THROTTLE_USER", "100000000/hour")

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from apps.courses.models import Chapter  # noqa: E402
from apps.glossary.models import Term  # noqa: E402

N = 60


def endpoints() -> dict[str, str]:
    chapter = Chapter.objects.published().order_by("-body").values_list("slug", flat=True).first()
    chapter = Chapter.objects.filter(slug="attention").values_list("slug", flat=True).first() or chapter
    term = Term.objects.published().order_by("slug").values_list("slug", flat=True).first()
    return {
        "ping": "/api/v1/ping/",
        "parts": "/api/v1/parts/",
        "chapter list": "/api/v1/chapters/",
        "chapter page": f"/api/v1/chapters/{chapter}/",
        "glossary list": "/api/v1/glossary/",
        "term page": f"/api/v1/glossary/{term}/",
        "questions list": "/api/v1/questions/",
    }


def measure(client: Client, path: str, headers: dict) -> tuple[float, float, int, int, str]:
    response = client.get(path, **headers)  # warm (and fill any cache)
    times, cpu = [], []
    for _ in range(N):
        start, start_cpu = time.perf_counter(), time.thread_time()
        client.get(path, **headers)
        times.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - start_cpu)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, **headers)
    query_count = len(queries)  # before the next request clears the log
    etag = response.get("ETag", "")
    not_modified = client.get(path, HTTP_IF_NONE_MATCH=etag, **headers).status_code if etag else 0
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000, query_count, response.status_code, f"{len(response.content)} B, 304: {not_modified}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", help="cProfile this path (signed in) and print the top functions")
    args = parser.parse_args()
    user, _ = get_user_model().objects.get_or_create(username="bench-reader")
    token, _ = Token.objects.get_or_create(user=user)
    client = Client()
    signed_in = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    if args.profile:
        for _ in range(5):
            client.get(args.profile, **signed_in)
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(50):
            client.get(args.profile, **signed_in)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        return
    print(f"median of {N}; wall ms includes the database, CPU ms is this process only")
    print(f"{'endpoint':16} {'anon wall':>9} {'anon CPU':>9} {'token wall':>10} {'token CPU':>9} {'queries':>8}  status / size")
    for name, path in endpoints().items():
        anon_ms, anon_cpu, _, _, _ = measure(client, path, {})
        user_ms, user_cpu, queries, code, info = measure(client, path, signed_in)
        print(f"{name:16} {anon_ms:9.2f} {anon_cpu:9.2f} {user_ms:10.2f} {user_cpu:9.2f} {queries:8d}  {code} {info}")


if __name__ == "__main__":
    main()
