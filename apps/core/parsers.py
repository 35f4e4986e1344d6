"""JSON parser that refuses pathological bodies (deep nesting, non-finite numbers) with a 400."""

import json

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 32


def _check_depth(value, depth: int = 0) -> None:
    if depth > MAX_JSON_DEPTH:
        raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
    if isinstance(value, dict):
        for item in value.values():
            _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1)


def _reject_constant(name: str):
    raise ParseError(f"JSON constant {name} is not allowed.")


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read(settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1) if stream is not None else b""
        if len(raw) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            raise ParseError("Request body too large.")
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
