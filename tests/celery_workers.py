"""Real Celery worker processes for the job tests: one solo worker per call, on a private queue, against the test
database (which must be PostgreSQL, shared with the worker process)."""

import os
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    if connection.vendor != "postgresql":
        pytest.skip("real workers need a shared PostgreSQL test database")
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def start_worker(env: dict, queue: str, i: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-Q", queue, "-n", f"w{i}-{queue}@%h",
         "--without-heartbeat", "--without-mingle", "--without-gossip", "-l", "WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@contextmanager
def one_worker(settings, django_db_blocker, name: str):
    """One real worker on a private queue, with this process sending to it (not eagerly) while the block runs."""
    from config.celery import app

    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    with django_db_blocker.unblock():
        db_url = database_url()
    queue = f"{name}-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": db_url, "CELERY_BROKER_URL": url, "CELERY_RESULT_BACKEND": url,
           "CELERY_TASK_DEFAULT_QUEUE": queue, "CELERY_TASK_ALWAYS_EAGER": "false"}
    proc = start_worker(env, queue, 0)
    settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_BROKER_URL, settings.CELERY_TASK_ALWAYS_EAGER = queue, url, False
    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url, app.conf.task_always_eager = url, False
    try:
        yield proc
    finally:
        app.conf.broker_url, app.conf.task_always_eager = old
        proc.kill()
        proc.wait(timeout=10)
