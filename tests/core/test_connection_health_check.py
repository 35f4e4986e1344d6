"""The per-request health check: no round trip on a quiet healthy connection, a real check when the server spoke.

A connection the server ended (here `pg_terminate_backend`, as a restart or an administrator would) must be found
unusable before a request's first query, so the request reconnects instead of failing.
"""

import time

import pytest
from django.db import connection, connections
from django.db.backends.postgresql import base as django_postgresql

pytestmark = pytest.mark.django_db


@pytest.fixture
def second_connection():
    if connection.vendor != "postgresql":
        pytest.skip("the check reads a PostgreSQL socket")
    wrapper = connections.create_connection("default")
    wrapper.ensure_connection()
    yield wrapper
    wrapper.close()


@pytest.fixture
def round_trips(monkeypatch):
    """How many times the check fell back to Django's own `SELECT 1`."""
    calls = []
    original = django_postgresql.DatabaseWrapper.is_usable

    def counted(self):
        calls.append(self)
        return original(self)

    monkeypatch.setattr(django_postgresql.DatabaseWrapper, "is_usable", counted)
    return calls


def backend_pid(wrapper) -> int:
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_a_quiet_healthy_connection_passes_without_a_query(second_connection, round_trips):
    assert type(second_connection).__module__ == "apps.core.postgresql.base"
    backend_pid(second_connection)
    assert second_connection.is_usable() is True
    assert round_trips == []


def test_a_connection_the_server_ended_is_unusable_and_the_next_query_reconnects(second_connection, round_trips):
    pid = backend_pid(second_connection)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        assert cursor.fetchone()[0] is True
    deadline = time.monotonic() + 5
    while second_connection.is_usable() and time.monotonic() < deadline:  # the termination reaches the socket
        time.sleep(0.01)
    assert second_connection.is_usable() is False
    assert round_trips, "a readable socket must be confirmed by the real check"

    # What Django does at a request's start and first query: the check fails, the connection is replaced.
    second_connection.close_if_unusable_or_obsolete()
    second_connection.close_if_health_check_failed()
    assert backend_pid(second_connection) != pid
