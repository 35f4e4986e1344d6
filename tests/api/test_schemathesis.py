"""Fuzz the whole OpenAPI schema against a live server: no request may produce a 5xx."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def learner_token(make_user):
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=make_user("fuzzer")).key


def run_schemathesis(live_server, extra: list[str]) -> subprocess.CompletedProcess:
    command = [
        sys.executable, "-m", "schemathesis.cli", "run", f"{live_server.url}/api/schema/",
        "--checks", "not_a_server_error", "--workers", "1", "--max-examples", "12", "--seed", "1",
        "--request-timeout", "20", "--suppress-health-check", "all", *extra,
    ]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_no_server_errors_anonymous(live_server):
    from django.core.management import call_command

    call_command("load_content", verbosity=0)
    result = run_schemathesis(live_server, [])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_no_server_errors_signed_in(live_server, learner_token):
    from django.core.management import call_command

    call_command("load_content", verbosity=0)
    result = run_schemathesis(live_server, ["--header", f"Authorization: Token {learner_token}"])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
