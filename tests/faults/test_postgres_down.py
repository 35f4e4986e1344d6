"""PostgreSQL briefly unavailable: the running app answers 503 JSON (no stack trace, no HTML), then recovers.

A private cluster (initdb + pg_ctl in a temp dir, free port) serves gunicorn in a subprocess; only it is stopped.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from tests.faults.services import PrivatePostgres, free_port, port_open, wait_for

pytestmark = pytest.mark.slow
BASE_DIR = Path(settings.BASE_DIR)


def get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode()


@pytest.fixture
def database():
    if not os.path.exists("/usr/lib/postgresql") and not any(
            os.access(os.path.join(p, "initdb"), os.X_OK) for p in os.environ["PATH"].split(":")):
        pytest.skip("PostgreSQL server binaries are not installed")
    # Not under tmp_path: pytest's temp root is private to root, and initdb runs as the postgres user.
    root = Path(tempfile.mkdtemp(prefix="llmkit-fault-pg-"))
    root.chmod(0o755)
    postgres = PrivatePostgres(root)
    try:
        postgres.init()
        postgres.start()
        yield postgres
    finally:
        if port_open(postgres.port):
            postgres.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def server(database, tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in {"REDIS_URL", "CACHE_URL", "CELERY_BROKER_URL"}}
    env.update(DATABASE_URL=database.url, DEBUG="false", SECRET_KEY="fault-test-" * 5, SECURE_SSL_REDIRECT="false",
               ALLOWED_HOSTS="127.0.0.1", VAR_DIR=str(tmp_path / "var"), LOG_LEVEL="WARNING")
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=BASE_DIR, env=env, check=True,
                   timeout=120, capture_output=True)
    port = free_port()
    process = subprocess.Popen(
        [str(Path(python).with_name("gunicorn")), "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", "1", "--threads", "2", "--timeout", "30"],
        cwd=BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=(tmp_path / "gunicorn.log").open("w"))
    base = f"http://127.0.0.1:{port}"
    assert wait_for(lambda: port_open(port), timeout_s=20), "gunicorn did not start"
    yield base
    process.terminate()
    process.wait(15)


def test_database_outage_answers_503_json_and_recovers(database, server):
    cached = ["/api/v1/chapters/", "/api/v1/glossary/", "/api/v1/questions/"]  # content-version cache (public reads)
    uncached = ["/api/v1/simulators/models/"]
    reads = [*cached, *uncached]
    before = {path: get(server + path) for path in reads}
    assert all(before[path][0] == 200 for path in reads), before

    database.stop()
    for path in cached:  # already rendered for this content version: served from the cache, unchanged
        assert get(server + path) == before[path], path
    for path in [*uncached, "/api/v1/health/"]:
        status, content_type, body = get(server + path)
        assert status == 503, (path, status, body[:200])
        assert content_type.startswith("application/json"), (path, content_type)
        answer = json.loads(body)
        if path.endswith("/health/"):
            assert answer["database"] == "unavailable"
        else:
            assert answer["error"] == "service_unavailable" and "database" in answer["detail"].lower()
        assert "Traceback" not in body and "<html" not in body.lower()

    database.start()
    assert wait_for(lambda: get(server + "/api/v1/health/")[0] == 200, timeout_s=15), "no recovery"
    for path in reads:
        assert get(server + path)[0] == 200, path
