"""Fuzz the whole OpenAPI schema against the real server (gunicorn on the test database).

Checks: no server error, responses conform to the documented schemas, status codes and content types; the stateful
phase follows the schema's links. Throttles are raised for the fuzzed server so every operation is exercised.
"""

import subprocess
import sys

import pytest

from tests.support.servers import ROOT, Gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
CHECKS = "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance"


@pytest.fixture
def server():
    from django.core.management import call_command

    call_command("load_content", verbosity=0)
    gunicorn = Gunicorn()
    yield gunicorn
    gunicorn.stop()


def run_schemathesis(server: Gunicorn, extra: list[str]) -> subprocess.CompletedProcess:
    command = [
        sys.executable, "-m", "schemathesis.cli", "run", f"{server.url}/api/schema/",
        "--checks", CHECKS, "--workers", "1", "--max-examples", "3", "--seed", "1",
        "--request-timeout", "20", "--suppress-health-check", "all", *extra,
    ]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_whole_schema_anonymous(server):
    result = run_schemathesis(server, [])
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:] + server.log_tail()


def test_whole_schema_signed_in(server, make_user):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=make_user("fuzzer")).key
    result = run_schemathesis(server, ["--header", f"Authorization: Token {token}"])
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:] + server.log_tail()
