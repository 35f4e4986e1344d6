"""JSON parser that refuses pathological bodies (deep nesting, non-finite numbers, unstorable strings) with a 400."""

import json

import ijson
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


# --- streaming -------------------------------------------------------------------------------------------------


class _BoundedReader:
    """A request stream that refuses to give more than ``limit`` bytes (a body without Content-Length)."""

    def __init__(self, stream, limit: int, message: str):
        self.stream, self.limit, self.message, self.read_so_far = stream, limit, message, 0

    def read(self, size: int = -1) -> bytes:
        remaining = self.limit + 1 - self.read_so_far
        size = remaining if size is None or size < 0 else min(size, remaining)
        chunk = self.stream.read(size) if self.stream is not None and size > 0 else b""
        self.read_so_far += len(chunk)
        if self.read_so_far > self.limit:
            raise ParseError(self.message)
        return chunk


class StreamedJSON:
    """A JSON object body read lazily: ``members()`` walks it once, holding one top-level value (or one element
    of a top-level array) at a time, so memory does not grow with the body. The same checks as the strict parser:
    no NaN/Infinity, bounded depth, storable strings; the size limit is enforced while reading."""

    ARRAY_ITEM, SCALAR = "item", "member"

    def __init__(self, stream, limit: int, message: str):
        self.reader = _BoundedReader(stream, limit, message)

    def members(self):
        """Yields (SCALAR, key, value) for each top-level member whose value is not an array, and (ARRAY_ITEM, key,
        element) for each element of a top-level array, in document order."""
        events = ijson.parse(self.reader, use_float=True)
        try:
            _, event, _ = next(events, (None, None, None))
            if event != "start_map":
                raise ParseError("JSON parse error: the body must be a JSON object.")
            for _, event, key in events:
                if event == "end_map":
                    break
                _check_string(key)
                _, event, value = next(events)
                if event == "start_array":
                    for _, event, value in events:
                        if event == "end_array":
                            break
                        yield self.ARRAY_ITEM, key, self._value(events, event, value, depth=2)
                else:
                    yield self.SCALAR, key, self._value(events, event, value, depth=1)
            if next(events, None) is not None:
                raise ParseError("JSON parse error: data after the end of the object.")
        except ijson.JSONError as exc:
            raise ParseError(f"JSON parse error: {exc}") from exc

    @staticmethod
    def _value(events, event: str, value, depth: int):
        if event not in ("start_map", "start_array"):
            _check_depth(value, depth)
            return value
        builder = ijson.ObjectBuilder()
        builder.event(event, value)
        level = 1
        for _, event, value in events:
            if event in ("start_map", "start_array"):
                level += 1
                if depth + level > MAX_JSON_DEPTH:
                    raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
            elif event in ("end_map", "end_array"):
                level -= 1
            builder.event(event, value)
            if level == 0:
                break
        _check_depth(builder.value, depth)
        return builder.value


class StreamingJSONParser(StrictJSONParsing, BaseParser):
    """For large uploads read as a stream (a flashcard collection import): ``request.data`` is a StreamedJSON that
    the view walks once. A declared Content-Length over the limit is refused before anything is read."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        limit, message = self.max_bytes(), self.too_large_message
        try:
            declared = int((request.META if request is not None else {}).get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > limit:
            raise ParseError(message)
        return StreamedJSON(stream, limit, message)
