"""Faults covered elsewhere, referenced rather than duplicated; this fails if a referenced test disappears.

- A Celery worker killed during a sweep: tests/simulators/test_sweeps_celery.py (real workers on Redis; the job
  ends in a final state and a retried chunk never stores a point twice).
- A review submitted twice or concurrently is applied once: tests/flashcards/test_concurrency.py (two threads, one
  review_id → one ReviewLog; different ids → applied in turn) and the replay tests in tests/flashcards/test_review.py.
"""

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
TESTS = Path(__file__).resolve().parent.parent
REFERENCES = {
    "simulators/test_sweeps_celery.py": ["test_killed_worker_ends_in_a_final_state"],
    "flashcards/test_concurrency.py": ["test_same_review_id_applies_once", "test_different_review_ids_both_apply_in_turn"],
}


@pytest.mark.parametrize(("module", "names"), REFERENCES.items())
def test_referenced_fault_tests_exist(module, names):
    tree = ast.parse((TESTS / module).read_text())
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert set(names) <= defined, set(names) - defined
