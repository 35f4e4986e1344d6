"""The web client's page table, read from the one list the client itself uses (frontend/src/routes.json).

A path no page knows is answered with HTTP 404 (the client then shows its not-found page), so crawlers, link checkers
and monitoring see what a learner sees. A page about one object (a chapter, a term, a question) is 404 too when that
object is not there for this reader: the app that owns the object registers the check (register_page_check), so this
module names no app above it.
"""

import json
import re
from collections.abc import Callable
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
            parts.append(f"(?P<{segment[1:]}>[^/]+)")
        else:
            parts.append(re.escape(segment))
    return "/".join(parts)


@lru_cache(maxsize=1)
def routes() -> list[tuple[str, re.Pattern]]:
    """(route, its regex with a named group per parameter), in the client's order: the first match is the page."""
    table = json.loads(ROUTES_FILE.read_text(encoding="utf-8"))["routes"]
    return [(route, re.compile(f"^{_pattern(route)}/?$")) for route in table]


PageCheck = Callable[..., bool]  # (user, **route parameters) -> whether the page's object is there for this user
_CHECKS: dict[str, PageCheck] = {}


def register_page_check(route: str, check: PageCheck) -> None:
    if route not in {known for known, _ in routes()}:
        raise ValueError(f"{route} is not a route of the web client (frontend/src/routes.json)")
    _CHECKS[route] = check


def page_exists(path: str, user) -> bool:
    """True when some page of the web client answers this path (given without the leading slash) and the object
    it shows, if any, is there for ``user``."""
    for route, pattern in routes():
        if match := pattern.match(path.strip("/")):
            check = _CHECKS.get(route)
            return check is None or check(user, **match.groupdict())
    return False
