"""Starting the project in subprocesses (gunicorn, Celery) against the test database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_database_url() -> str:
    """The URL of the database the current test runs on, for subprocesses to share it."""
    from django.db import connection

    params = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{params['NAME']}"
    user = params.get("USER") or "postgres"
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or "5432"
    return f"postgres://{user}@{host}:{port}/{params['NAME']}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_health(url: str, process: subprocess.Popen, timeout: float = 30) -> None:
    """Returns once the server at ``url`` answers its health check; raises if ``process`` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the server exited")
        try:
            with urllib.request.urlopen(f"{url}/api/v1/health/", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not answer in time")


class Gunicorn:
    """The WSGI app served by gunicorn as production configures it, on a free port, with throttles raised so a fuzzer
    is not rate-limited."""

    def __init__(self, env_extra: dict[str, str] | None = None, workers: int = 2):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {key: value for key, value in os.environ.items() if key != "DJANGO_ALLOW_ASYNC_UNSAFE"}
        env.update(
            DATABASE_URL=test_database_url(),
            THROTTLE_ANON="1000000/hour",
            THROTTLE_USER="1000000/hour",
            THROTTLE_LOGIN="1000000/hour",
            THROTTLE_SWEEPS="1000000/hour",
            **(env_extra or {}),
        )
        # Logs go to a file: a pipe nobody reads fills up and blocks the workers mid-request.
        self.log = tempfile.NamedTemporaryFile("w+", prefix="gunicorn-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "-c", "python:apps.core.gunicorn_conf",  # production's hooks and sockets
             "--workers", str(workers), "--threads", "2", "--timeout", "60", "--log-level", "warning"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        self._wait_until_up()

    def _wait_until_up(self, timeout: float = 30) -> None:
        try:
            wait_for_health(self.url, self.process, timeout)
        except RuntimeError as error:
            raise RuntimeError(f"{error}: {self.log_tail()}") from None

    def log_tail(self, size: int = 3000) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")[-size:]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)
