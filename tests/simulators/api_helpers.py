"""Shared helpers for the simulator API tests: load the real catalog, post, parse JSON strictly (no NaN/inf)."""

import json

from apps.core.content import FIXTURES_DIR, LoadContext
from apps.simulators.content import load_catalog

BASE = "/api/v1/simulators"


def load_real_catalog() -> LoadContext:
    ctx = LoadContext(root=FIXTURES_DIR)
    load_catalog(ctx)
    assert not ctx.errors, ctx.errors
    return ctx


def _no_constants(name):
    raise AssertionError(f"response holds the JSON constant {name}")


def strict_json(response) -> dict:
    return json.loads(response.content, parse_constant=_no_constants)


def post(client, name: str, body: dict, status: int = 200) -> dict:
    response = client.post(f"{BASE}/{name}/", body, format="json")
    data = strict_json(response)
    assert response.status_code == status, data
    return data


def assert_finite(value) -> None:
    """Every number anywhere in the body is finite (json.loads already refused NaN/Infinity)."""
    if isinstance(value, dict):
        for item in value.values():
            assert_finite(item)
    elif isinstance(value, list):
        for item in value:
            assert_finite(item)
    elif isinstance(value, float):
        assert value == value and abs(value) != float("inf")
