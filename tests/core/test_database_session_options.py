"""Each PostgreSQL session gets the planner settings the read paths were measured with (DB_SESSION_OPTIONS)."""

import pytest
from django.db import connection


@pytest.mark.django_db
def test_sessions_plan_for_data_in_memory_without_parallel_query():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL session settings")
    with connection.cursor() as cursor:
        cursor.execute("SHOW random_page_cost")
        assert float(cursor.fetchone()[0]) == 1.1
        cursor.execute("SHOW max_parallel_workers_per_gather")
        assert cursor.fetchone()[0] == "0"


@pytest.mark.django_db
def test_a_statement_run_often_is_prepared_once(django_user_model):
    """DB_PREPARE_THRESHOLD (5): from the fifth run on one connection a statement is prepared on the server, so a
    hot read (the token lookup, the reader's progress) is no longer planned on every request."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL prepared statements")

    def prepared() -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return {row[0] for row in cursor.fetchall()}

    for username in ["a", "b", "c", "d", "e", "f"]:
        assert not django_user_model.objects.filter(username=username).exists()
    statements = [text for text in prepared() if "auth_user" in text and "username" in text]
    assert len(statements) == 1 and "$1" in statements[0]
