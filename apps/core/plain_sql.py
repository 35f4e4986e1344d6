"""Model instances from plain statements, for the few hot reads where building the ORM's query costs more than the
database's work (the due queue on every page of a review session). The columns are named from the models' metadata
and every value goes through the converters the ORM would apply (SQLite's booleans and datetimes, JSON), so the
instances are the ones a queryset would give."""

from __future__ import annotations

from contextlib import contextmanager

from django.db import models


class Columns:
    """Some of a model's fields, selected by a plain statement and built into (deferred-field) instances."""

    def __init__(self, model: type[models.Model], names: tuple[str, ...] | None = None):
        """``names``: the fields to select (None: every concrete field), kept in the model's order as ``from_db``
        needs them."""
        order = {field.attname: index for index, field in enumerate(model._meta.concrete_fields)}
        self.model = model
        chosen = model._meta.concrete_fields if names is None else (model._meta.get_field(name) for name in names)
        self.fields = sorted(chosen, key=lambda field: order[field.attname])
        self.attnames = [field.attname for field in self.fields]
        self._converters: dict[str, list[tuple[int, object, list]]] = {}  # per database alias

    def __len__(self) -> int:
        return len(self.fields)

    def select(self, alias: str) -> str:
        return ", ".join(f'{alias}."{field.column}"' for field in self.fields)

    def build(self, values, connection) -> models.Model:
        """An instance from a row's values (in ``select``'s order)."""
        converters = self._converters.get(connection.alias)
        if converters is None:
            converters = self._converters[connection.alias] = self._converters_for(connection)
        if converters:
            values = list(values)
            for index, column, functions in converters:
                for convert in functions:
                    values[index] = convert(values[index], column, connection)
        return self.model.from_db(connection.alias, self.attnames, values)

    def _converters_for(self, connection) -> list[tuple[int, object, list]]:
        """(index, column, converter functions) of each field that has any, as the ORM's compiler finds them."""
        found = []
        for index, field in enumerate(self.fields):
            column = field.get_col(self.model._meta.db_table)
            functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if functions:
                found.append((index, column, functions))
        return found


def placeholders(values) -> str:
    """``%s, %s, …``: one parameter per value, for an ``IN (…)`` list."""
    return ", ".join(["%s"] * len(values))


def probe_join(connection, table: str, alias: str, condition: str, columns: str = "*") -> str:
    """A join of ``table`` as ``alias`` on ``condition`` (which refers to the outer row) that finds each outer row's
    matches through an index, one outer row at a time. On PostgreSQL a LATERAL subquery (OFFSET 0 keeps the planner
    from flattening it): its planner would otherwise read all of a large table to hash-join a few hundred rows.
    ``columns`` are those the subquery passes out (PostgreSQL); elsewhere a plain join."""
    if connection.vendor == "postgresql":
        return f"CROSS JOIN LATERAL (SELECT {columns} FROM {table} {alias} WHERE {condition} OFFSET 0) {alias}"
    return f"JOIN {table} {alias} ON {condition}"


@contextmanager
def planned_for_their_values(connection):
    """Statements run inside are planned for their values each time, never prepared (DB_PREPARE_THRESHOLD). A
    prepared statement soon runs a generic plan, made without the values, and such a plan cannot use a partial index
    whose condition a parameter must meet: the due queue's learning section (``state IN (%s, %s)`` against the
    index on learning cards) then took 2.2 ms instead of 0.5 (benchmarks/README.md, "Prepared statements and the
    due queue"). A no-op where nothing is prepared (SQLite, or DB_PREPARE_THRESHOLD=off)."""
    connection.ensure_connection()
    raw = connection.connection
    threshold = getattr(raw, "prepare_threshold", None)
    if threshold is None:
        yield
        return
    raw.prepare_threshold = None  # psycopg: neither prepare nor use what was prepared
    try:
        yield
    finally:
        raw.prepare_threshold = threshold
