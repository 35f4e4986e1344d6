"""A real Celery worker process consuming from the real local Redis."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.celery_worker, pytest.mark.xdist_group("celery")]


def start_worker(queue: str, env_extra: dict | None = None) -> subprocess.Popen:
    env = {**os.environ, "CELERY_TASK_DEFAULT_QUEUE": queue, **(env_extra or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-Q", queue, "--without-heartbeat", "--without-mingle", "--without-gossip", "-l", "WARNING"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.fixture
def redis_url():
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.ConnectionError:
        pytest.fail("Redis is not answering; scripts/services.sh starts it")
    return url


def test_task_runs_on_real_worker(redis_url):
    from config.celery import app

    queue = f"test-{uuid.uuid4().hex[:8]}"
    worker = start_worker(queue, {"CELERY_BROKER_URL": redis_url, "CELERY_RESULT_BACKEND": redis_url})
    try:
        app.conf.broker_url = redis_url
        app.conf.result_backend = redis_url
        result = app.send_task("core.ping", args=["hello"], queue=queue)
        assert result.get(timeout=30)["echo"] == "hello"
    finally:
        worker.terminate()
        worker.wait(timeout=10)
