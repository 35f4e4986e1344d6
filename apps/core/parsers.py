"""JSON parser that refuses pathological bodies (deep nesting, non-finite numbers, unstorable strings) with a 400."""

import json

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser, JSONParser

MAX_JSON_DEPTH = 32


def _check_string(text: str) -> None:
    # Legal JSON, but PostgreSQL cannot store NUL and UTF-8 cannot encode a lone surrogate ("\ud800").
    if "\x00" in text:
        raise ParseError("JSON strings may not contain NUL (\\u0000) characters.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ParseError("JSON strings may not contain unpaired surrogates.") from exc


def _check_depth(value, depth: int = 0) -> None:
    """Refuses nesting deeper than MAX_JSON_DEPTH and strings (values or keys) that cannot be stored."""
    if depth > MAX_JSON_DEPTH:
        raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
    if isinstance(value, str):
        _check_string(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_string(key)
            _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1)


def _reject_constant(name: str):
    raise ParseError(f"JSON constant {name} is not allowed.")


class StrictJSONParsing:
    """Parsing shared by the strict parsers: bounded read, no NaN/Infinity, bounded depth, clean strings."""

    too_large_message = "Request body too large."

    def max_bytes(self) -> int:
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    def parse(self, stream, media_type=None, parser_context=None):
        limit, message = self.max_bytes(), self.too_large_message
        view, request = (parser_context or {}).get("view"), (parser_context or {}).get("request")
        if view is not None and request is not None and hasattr(view, "body_limit"):
            own = view.body_limit(request)  # (bytes, message) of a view that costs more per byte than most
            if own is not None and own[0] < limit:
                limit, message = own
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(message)
        if not raw:
            return {}
        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        except RecursionError as exc:
            raise ParseError("JSON nested too deeply.") from exc
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error: {exc}") from exc
        _check_depth(data)
        return data


class StrictJSONParser(StrictJSONParsing, JSONParser):
    """The default parser: bodies up to DATA_UPLOAD_MAX_MEMORY_SIZE (DRF reads JSON bodies through request.body)."""


class LargeJSONParser(StrictJSONParsing, BaseParser):
    """For the few uploads allowed past the global body limit (e.g. a flashcard collection import).

    Not a JSONParser subclass on purpose: DRF hands JSONParser subclasses `request.body`, where Django enforces
    DATA_UPLOAD_MAX_MEMORY_SIZE; any other parser reads the request stream, bounded here by ``max_bytes``.
    """

    media_type = "application/json"
