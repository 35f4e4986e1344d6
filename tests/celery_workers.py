"""Real Celery worker processes for the job tests: one solo worker per call, on a private queue, against the test
database (which must be PostgreSQL, shared with the worker process)."""

import subprocess
import sys
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
