"""Redis as the shared cache (throttle counters) and the broker, killed or frozen (SIGSTOP), with the cache
configured exactly as production configures it from CACHE_URL.

Reading, practice, flashcard review and the synchronous simulators answer quickly and successfully; the job
endpoints answer 503; health reports the cache and the broker down (200, the database is fine); the outage is
logged once and counted in metrics; when Redis comes back the shared cache is used again, with no restart.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest

from tests.faults.services import PrivateRedis, port_open, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

SETTINGS_FILE = Path(__file__).resolve().parents[2] / "config" / "settings.py"
SWEEP = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "grid": {"max_num_seqs": [8, 16]},
         "workload": {"num_requests": 20, "arrival_rate_per_s": 10, "prompt_tokens": 100, "output_tokens": 10}}


def production_caches(cache_url: str) -> dict:
    """CACHES as config/settings.py builds it when CACHE_URL is set (the production configuration)."""
    with mock.patch.dict(os.environ, {"CACHE_URL": cache_url}):
        spec = importlib.util.spec_from_file_location("settings_with_cache_url", SETTINGS_FILE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module.CACHES


class Hung(Exception):
    pass


@contextmanager
def deadline(seconds: float):
    """Fails a call that blocks (a frozen Redis without socket timeouts would block forever)."""

    def on_alarm(signum, frame):
        raise Hung(f"blocked for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(call, *args, **kwargs):
    started = time.monotonic()
    with deadline(10):
        response = call(*args, **kwargs)
    return response, time.monotonic() - started


@pytest.fixture
def redis_server(settings):
    server = PrivateRedis()
    server.start()
    caches = production_caches(f"redis://127.0.0.1:{server.port}/2")
    if caches["default"]["BACKEND"].endswith("ResilientRedisCache"):
        caches["default"]["OPTIONS"]["retry_after_s"] = 0.5  # quick recovery checks
    settings.CACHES = caches
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{server.port}/1"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    yield server
    if server.process and server.process.poll() is None:
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()


@pytest.fixture
def learner(make_user, content):
    from rest_framework.test import APIClient

    from tests.simulators.api_helpers import load_real_catalog

    load_real_catalog()
    client = APIClient()
    client.force_authenticate(make_user("cache-learner"))
    assert client.post(f"/api/v1/flashcards/decks/{content.deck}/add/").status_code == 200
    return client


def redis_keys(server: PrivateRedis) -> int:
    import redis

    client = redis.Redis(host="127.0.0.1", port=server.port, db=2, socket_timeout=2)
    try:
        return len(client.keys("*"))
    finally:
        client.close()


def settings_caches() -> dict:
    from django.conf import settings

    return settings.CACHES


def cache_errors() -> float:
    from prometheus_client import REGISTRY

    return sum(sample.value for metric in REGISTRY.collect() if metric.name == "llmkit_cache_errors"
               for sample in metric.samples if sample.name == "llmkit_cache_errors_total")


def learner_calls(client, anonymous, content) -> list[tuple[str, int, float]]:
    results = []

    def call(label, method, url, body=None):
        response, elapsed = timed(getattr(client if label != "anonymous read" else anonymous, method), url, body,
                                  format="json")
        results.append((label, response.status_code, elapsed))
        return response

    call("anonymous read", "get", "/api/v1/chapters/")
    call("chapters", "get", "/api/v1/chapters/")
    call("chapter", "get", f"/api/v1/chapters/{content.chapter.slug}/")
    session = call("practice session", "post", "/api/v1/practice/sessions/", {"size": 1})
    if session.status_code == 201:
        call("practice answer", "post", f"/api/v1/practice/sessions/{session.json()['id']}/answers/",
             {"question": content.question.id, "self_rating": "good"})
    due = call("due cards", "get", "/api/v1/flashcards/due/")
    if due.status_code == 200:
        body = due.json()
        cards = body.get("cards") or body.get("queue") or []
        if cards:
            call("review", "post", f"/api/v1/flashcards/{cards[0]['card_id']}/review/",
                 {"rating": 3, "review_id": str(uuid.uuid4())})
    call("kv-cache simulator", "post", "/api/v1/simulators/kv-cache/",
         {"model": "llama-3.1-8b", "context_tokens": 4096})
    call("engine simulator", "post", "/api/v1/simulators/engine/",
         {"model": "llama-3.1-8b", "gpu": "h100-sxm", "workload": {"num_requests": 20}})
    return results


@pytest.mark.parametrize("fault", ["killed", "frozen"])
def test_learning_keeps_working_with_redis_down_and_recovers(fault, redis_server, learner, content, caplog):
    from rest_framework.test import APIClient

    from apps.flashcards import optimization

    anonymous = APIClient()
    with mock.patch.object(optimization, "MIN_REVIEWS", 1):
        # Redis up: throttle counters land in the shared cache.
        assert learner.get("/api/v1/chapters/").status_code == 200
        assert anonymous.get("/api/v1/chapters/").status_code == 200
        assert redis_keys(redis_server) > 0
        errors_before = cache_errors()

        if fault == "killed":
            redis_server.process.kill()
            redis_server.process.wait(10)
            assert wait_for(lambda: not port_open(redis_server.port))
        else:
            os.kill(redis_server.process.pid, signal.SIGSTOP)

        caplog.set_level(logging.WARNING, logger="apps.core.cache")
        options = settings_caches()["default"]["OPTIONS"]
        started = time.monotonic()
        for _ in range(2):  # twice: the second round must not go to Redis again
            results = learner_calls(learner, anonymous, content)
            failed = [(label, code) for label, code, _ in results if code >= 300]
            assert not failed, failed
        # Work, not time: the breaker opens after failures_to_trip failed operations, then lets one probe through per
        # retry interval; every other cache operation of the many calls above is served locally.
        probes = (time.monotonic() - started) / options["retry_after_s"] + 1
        assert cache_errors() - errors_before <= options["failures_to_trip"] + probes, (cache_errors(), probes)
        assert 2 * len(results) > options["failures_to_trip"] + probes  # one cache operation a call at least: the
        # bound is below what going to Redis on every call would cost

        health, _ = timed(anonymous.get, "/api/v1/health/")
        assert health.status_code == 200
        assert health.json() == {"status": "degraded", "database": "ok", "broker": "unavailable",
                                 "cache": "unavailable"}

        for url, body in (("/api/v1/simulators/sweeps/", SWEEP), ("/api/v1/flashcards/optimize/", None)):
            response, _ = timed(learner.post, url, body, format="json")  # timed: a call that blocks fails
            assert response.status_code == 503, (url, response.status_code, response.content[:200])
            assert "unavailable" in response.json()["detail"].lower()

        outage_lines = [r for r in caplog.records if r.name == "apps.core.cache" and "unavailable" in r.getMessage()]
        assert len(outage_lines) == 1, [r.getMessage() for r in outage_lines]
        assert cache_errors() > errors_before

        # Recovery, with no restart of anything on our side.
        if fault == "killed":
            redis_server.start()
        else:
            os.kill(redis_server.process.pid, signal.SIGCONT)
        assert wait_for(lambda: anonymous.get("/api/v1/health/").json()["cache"] == "ok", timeout_s=10)
        health = anonymous.get("/api/v1/health/").json()
        assert health == {"status": "ok", "database": "ok", "broker": "ok", "cache": "ok"}
        if fault == "killed":
            assert redis_keys(redis_server) == 0  # a fresh Redis
        time.sleep(0.6)  # past the retry interval
        assert learner.get("/api/v1/chapters/").status_code == 200
        assert redis_keys(redis_server) > 0  # throttle counters are back in the shared cache
