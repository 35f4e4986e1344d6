"""The web client's page table, read from the one list the client itself uses (frontend/src/routes.json).

A path no page knows is answered with HTTP 404 (the client then shows its not-found page), so crawlers, link checkers
and monitoring see what a learner sees.
"""

import json
import re
from functools import lru_cache
from pathlib import Path

from django.conf import settings

ROUTES_FILE = Path(settings.BASE_DIR) / "frontend" / "src" / "routes.json"


def _pattern(route: str) -> str:
    parts = []
    for segment in route.strip("/").split("/"):
        if not segment:
            continue
        if segment == "*":
            parts.append(".*")
        elif segment.startswith(":"):
            parts.append("[^/]+")
        else:
            parts.append(re.escape(segment))
    return "/".join(parts)


@lru_cache(maxsize=1)
def route_regex() -> re.Pattern:
    routes = json.loads(ROUTES_FILE.read_text(encoding="utf-8"))["routes"]
    return re.compile("^(?:" + "|".join(_pattern(route) for route in routes) + ")/?$")


def is_client_route(path: str) -> bool:
    """True when some page of the web client answers this path (given without the leading slash)."""
    return route_regex().match(path.strip("/")) is not None
