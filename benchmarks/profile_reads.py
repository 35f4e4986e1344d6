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
from urllib.parse import quote_plus

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


def endpoints() -> dict[str, str | list[str]]:
    chapter = Chapter.objects.published().order_by("-body").values_list("slug", flat=True).first()
    chapter = Chapter.objects.filter(slug="attention").values_list("slug", flat=True).first() or chapter
    term, term_name = Term.objects.published().order_by("slug").values_list("slug", "term").first()
    names = list(Term.objects.published().order_by("slug").values_list("term", flat=True)[1 : 2 * (N + 2) + 1])
    return {
        "ping": "/api/v1/ping/",
        "parts": "/api/v1/parts/",
        "chapter list": "/api/v1/chapters/",
        "chapter page": f"/api/v1/chapters/{chapter}/",
        "glossary list": "/api/v1/glossary/",
        "term page": f"/api/v1/glossary/{term}/",
        "questions list": "/api/v1/questions/",
        "search": _search_path(term_name),
        # every request a different query (the glossary's term names; anonymous and signed in get different ones),
        # so no answer comes from a cache
        "search, new q": [_search_path(name) for name in names],
    }


def _search_path(query: str) -> str:
    return f"/api/v1/search/?q={quote_plus(query)}&limit=12"


def measure(client: Client, paths: str | list[str], headers: dict) -> tuple[float, float, int, int, str]:
    """Timings of N requests to one path, or each to the next of N + 2 paths (the first warms up, the last is the
    request whose queries are counted)."""
    cycle = [paths] * (N + 2) if isinstance(paths, str) else paths
    response = client.get(cycle[0], **headers)  # warm (and fill any cache)
    times, cpu = [], []
    for path in cycle[1 : N + 1]:
        start, start_cpu = time.perf_counter(), time.thread_time()
        client.get(path, **headers)
        times.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - start_cpu)
    path = cycle[N + 1]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, **headers)
    query_count = len(queries)  # before the next request clears the log
    etag = response.get("ETag", "")
    not_modified = client.get(path, HTTP_IF_NONE_MATCH=etag, **headers).status_code if etag else 0
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000, query_count, response.status_code, f"{len(response.content)} B, 304: {not_modified}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", help="cProfile this path (signed in) and print the top functions")
    parser.add_argument("--only", help="measure only the endpoints whose name contains this, e.g. search")
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
        if args.only and args.only not in name:
            continue
        anon_path, user_path = (path, path) if isinstance(path, str) else (path[::2], path[1::2])
        anon_ms, anon_cpu, _, _, _ = measure(client, anon_path, {})
        user_ms, user_cpu, queries, code, info = measure(client, user_path, signed_in)
        print(f"{name:16} {anon_ms:9.2f} {anon_cpu:9.2f} {user_ms:10.2f} {user_cpu:9.2f} {queries:8d}  {code} {info}")


if __name__ == "__main__":
    main()
