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
