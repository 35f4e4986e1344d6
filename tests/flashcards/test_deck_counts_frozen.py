"""The deck-count migrations hold their SQL frozen, and it is still what deck_counts.py would write: a change to the
triggers' SQL fails here until a new migration drops and installs them again."""

import ast
import importlib
import re
from pathlib import Path

import pytest

from apps.flashcards import deck_counts

MIGRATIONS = Path(__file__).resolve().parents[2] / "apps" / "flashcards" / "migrations"
counts = importlib.import_module("apps.flashcards.migrations.0012_deck_counts")
carried = importlib.import_module("apps.flashcards.migrations.0013_carried_decks")


@pytest.mark.parametrize("vendor", ["postgresql", "sqlite"])
def test_the_frozen_triggers_are_what_the_module_writes_today(vendor):
    frozen = counts.POSTGRESQL_TRIGGERS if vendor == "postgresql" else counts.SQLITE_TRIGGERS
    assert frozen == deck_counts.trigger_statements(vendor)


def test_the_frozen_recount_and_carried_decks_are_what_the_module_writes_today():
    assert counts.RECOUNT == [sql for sql, _ in deck_counts.recount_statements()]
    assert carried.CARRY == deck_counts.carried_decks_statements()


@pytest.mark.parametrize(("installed", "dropped"), [
    (counts.POSTGRESQL_TRIGGERS, counts.POSTGRESQL_DROPS),
    (counts.SQLITE_TRIGGERS, counts.SQLITE_DROPS),
    (carried.CARRY, carried.UNCARRY),
])
def test_every_trigger_a_migration_creates_its_reverse_drops(installed, dropped):
    created = {name for sql in installed for name in re.findall(r"CREATE TRIGGER (\w+)", sql)}
    removed = {name for sql in dropped for name in re.findall(r"DROP TRIGGER IF EXISTS (\w+)", sql)}
    assert created and created == removed


def test_flashcards_migrations_run_no_live_app_code():
    """Only the models module may be named (Django imports the default callables a field declares); nothing that
    runs SQL or computes what a migration writes."""
    for path in sorted(MIGRATIONS.glob("0*.py")):
        tree = ast.parse(path.read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        assert {name for name in imported if name.startswith("apps")} <= {"apps.flashcards.models"}, path.name
