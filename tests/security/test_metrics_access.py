"""/metrics is not public: a bearer token (METRICS_TOKEN) or an allow-listed address (METRICS_ALLOWED_IPS) is
needed, nothing is allowed by default in production, and X-Forwarded-For cannot fake an allowed address. Under
gunicorn with PROMETHEUS_MULTIPROC_DIR the counters are summed over the worker processes."""

import importlib.util
import os
import re
import urllib.request
from pathlib import Path
from unittest import mock

import pytest

pytestmark = pytest.mark.django_db

SETTINGS_FILE = Path(__file__).resolve().parents[2] / "config" / "settings.py"
TOKEN = "scrape-token-0123456789abcdef"


@pytest.fixture
def production(settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_IPS = []
    return settings


def test_production_defaults_allow_nobody():
    env = {"DEBUG": "false", "SECRET_KEY": "x" * 50}
    with mock.patch.dict(os.environ, env):
        os.environ.pop("METRICS_TOKEN", None)
        os.environ.pop("METRICS_ALLOWED_IPS", None)
        spec = importlib.util.spec_from_file_location("settings_production_probe", SETTINGS_FILE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    assert module.METRICS_TOKEN == ""
    assert module.METRICS_ALLOWED_IPS == []


def test_metrics_refused_without_credentials(client, production):
    for headers in ({}, {"HTTP_X_FORWARDED_FOR": "127.0.0.1"}, {"HTTP_AUTHORIZATION": "Bearer "}):
        response = client.get("/metrics", **headers)
        assert response.status_code == 403
        assert b"django_http" not in response.content and b"llmkit_" not in response.content


def test_metrics_with_the_bearer_token(client, production):
    production.METRICS_TOKEN = TOKEN
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong-token").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Token {TOKEN}").status_code == 403
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert b"llmkit_jobs" in response.content


def test_metrics_from_an_allowed_network_only(client, production):
    production.METRICS_ALLOWED_IPS = ["10.0.0.0/8", "192.0.2.10"]
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.10").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.11").status_code == 403
    # The client's own X-Forwarded-For is not an address we trust (TRUSTED_PROXY_COUNT is 0).
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.11", HTTP_X_FORWARDED_FOR="10.1.2.3").status_code == 403


def scrape(url: str) -> str:
    request = urllib.request.Request(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def ping_count(text: str) -> float:
    pattern = re.compile(r'^django_http_requests_total_by_view_transport_method_total\{[^}]*view="ping"[^}]*\} (\S+)$',
                         re.M)
    return sum(float(value) for value in pattern.findall(text))


@pytest.mark.slow
def test_counters_are_summed_over_gunicorn_workers(transactional_db, tmp_path):
    from tests.support.servers import Gunicorn

    folder = tmp_path / "prometheus"
    folder.mkdir()
    server = Gunicorn(env_extra={"PROMETHEUS_MULTIPROC_DIR": str(folder), "METRICS_TOKEN": TOKEN,
                                 "METRICS_ALLOWED_IPS": "", "DEBUG": "false", "SECRET_KEY": "m" * 50,
                                 "SECURE_SSL_REDIRECT": "false", "ALLOWED_HOSTS": "127.0.0.1"}, workers=3)
    try:
        for _ in range(30):
            with urllib.request.urlopen(f"{server.url}/api/v1/ping/", timeout=10) as response:
                assert response.status == 200
        counts = [ping_count(scrape(server.url)) for _ in range(8)]
        assert counts == [30.0] * 8, counts
        # Without the token, nothing (production settings: no allow-list).
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server.url}/metrics", timeout=10)
        assert refused.value.code == 403
    finally:
        server.stop()
