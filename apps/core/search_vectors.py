"""Stored full-text search vectors for content models (PostgreSQL), kept right by the database itself.

A content model that site search ranks holds a ``search_vector`` column: the weighted ``tsvector`` of its text
fields (title A, summary B, body C for a chapter). A ``BEFORE INSERT OR UPDATE OF <those columns>`` trigger computes
it in the row's own statement, so every write path keeps it right: ``save()``, the admin, the loader,
``QuerySet.update()``, ``bulk_create`` and raw SQL alike; nothing in Python has to remember it. The column is
indexed with GIN and left out of ordinary queries (``SearchVectorManager``): only search reads it, in SQL.

The expression is the one ``SearchVector(field, weight=..., config="english")`` builds, concatenated in the same
order, so ranks from the stored vector equal those computed per query. On SQLite the column exists but stays empty
(search there does not use it) and the migration operation does nothing.
"""

from __future__ import annotations

from django.db import migrations, models

VECTOR_FIELD = "search_vector"
CONFIG = "english"


class SearchVectorManager(models.Manager):
    """Defers the stored search vector (kilobytes for a chapter) on every query that does not ask for it."""

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().defer(VECTOR_FIELD)


def vector_sql(columns: list[tuple[str, str]], row: str) -> str:
    """The weighted vector of ``columns`` — (column, weight) pairs; a column may carry a cast, ``aliases::text``."""
    parts = []
    for column, weight in columns:
        name, _, cast = column.partition("::")
        value = f'{row}"{name}"' + (f"::{cast}" if cast else "")
        parts.append(f"setweight(to_tsvector('{CONFIG}'::regconfig, COALESCE({value}, '')), '{weight}')")
    return " || ".join(parts)


def stored_search_vector(table: str, columns: list[tuple[str, str]]) -> migrations.RunPython:
    """A migration operation: on PostgreSQL, the trigger that keeps ``table.search_vector`` right, and the vectors
    of the rows already there. Reversible (drops the trigger); nothing on other databases."""
    function, trigger = f"{table}_search_vector_fill", f"{table}_search_vector"
    watched = ", ".join(f'"{column.partition("::")[0]}"' for column, _ in columns)

    def forward(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(
            f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"NEW.{VECTOR_FIELD} := {vector_sql(columns, 'NEW.')}; RETURN NEW; END $$"
        )
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
        schema_editor.execute(
            f"CREATE TRIGGER {trigger} BEFORE INSERT OR UPDATE OF {watched} ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {function}()"
        )
        schema_editor.execute(f"UPDATE {table} SET {VECTOR_FIELD} = {vector_sql(columns, '')}")

    def backward(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {function}()")

    return migrations.RunPython(forward, backward)


class GinIndexOnPostgres(migrations.AddIndex):
    """``AddIndex`` for a GIN index that only PostgreSQL builds (SQLite knows no ``USING gin``); the migration state
    holds the index everywhere, so ``makemigrations`` stays quiet."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
