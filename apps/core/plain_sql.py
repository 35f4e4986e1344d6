"""Model instances from plain statements, for the few hot reads where building the ORM's query costs more than the
database's work (the due queue on every page of a review session). The columns are named from the models' metadata
and every value goes through the converters the ORM would apply (SQLite's booleans and datetimes, JSON), so the
instances are the ones a queryset would give."""

from __future__ import annotations

from django.db import models


class Columns:
    """Some of a model's fields, selected by a plain statement and built into (deferred-field) instances."""

    def __init__(self, model: type[models.Model], names: tuple[str, ...]):
        order = {field.attname: index for index, field in enumerate(model._meta.concrete_fields)}
        self.model = model
        self.fields = sorted((model._meta.get_field(name) for name in names), key=lambda field: order[field.attname])
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
            converters = self._converters[connection.alias] = [
                (index, column, found) for index, column, found in (
                    (index, column, connection.ops.get_db_converters(column) + column.get_db_converters(connection))
                    for index, column in ((index, field.get_col(self.model._meta.db_table))
                                          for index, field in enumerate(self.fields)))
                if found]
        if converters:
            values = list(values)
            for index, column, functions in converters:
                for convert in functions:
                    values[index] = convert(values[index], column, connection)
        return self.model.from_db(connection.alias, self.attnames, values)
