"""JSON parser that refuses pathological bodies (deep nesting, non-finite numbers, unstorable strings) with a 400."""

import json
import tempfile

import ijson
from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

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
    """A JSON object body read lazily: ``members()`` walks it holding one top-level scalar (or one element of a
    top-level array) at a time, so memory does not grow with the body. The same checks as the strict parser: no
    NaN/Infinity, bounded depth, storable strings; the size limit is enforced while reading.

    The body is spooled to a temporary file (on disk past 1 MB) and read twice: a first pass over the parser's
    events checks depth and strings and collects the top-level scalars; then each top-level array's elements are
    built by ijson's C backend (``ijson.items``), far cheaper than building them event by event in Python.
    """

    ARRAY_ITEM, SCALAR = "item", "member"
    NESTED = object()  # stands for a top-level object value (nothing reads one)

    def __init__(self, stream, limit: int, message: str):
        self.reader = _BoundedReader(stream, limit, message)

    def members(self):
        """Yields (SCALAR, key, value) for each top-level member whose value is not an array (NESTED for an
        object), then (ARRAY_ITEM, key, element) for each element of each top-level array."""
        with tempfile.SpooledTemporaryFile(max_size=1024 * 1024) as spool:
            while chunk := self.reader.read(64 * 1024):
                spool.write(chunk)
            try:
                spool.seek(0)
                scalars, arrays = self._scan(spool)
                yield from ((self.SCALAR, key, value) for key, value in scalars)
                for key in dict.fromkeys(arrays):
                    spool.seek(0)
                    if "." in key:  # ijson's prefixes cannot name it; nobody's schema has such a key
                        yield self.ARRAY_ITEM, key, None
                        continue
                    for element in ijson.items(spool, f"{key}.item", use_float=True):
                        yield self.ARRAY_ITEM, key, element
            except ijson.JSONError as exc:
                raise ParseError(f"JSON parse error: {exc}") from exc

    @staticmethod
    def _scan(spool) -> tuple[list, list[str]]:
        depth, key, scalars, arrays = 0, None, [], []
        events = ijson.basic_parse(spool, use_float=True)
        first = next(events, (None, None))[0]
        if first != "start_map":
            raise ParseError("JSON parse error: the body must be a JSON object.")
        depth = 1
        for event, value in events:
            if event == "start_map" or event == "start_array":
                if depth == 1:
                    (arrays.append(key) if event == "start_array" else scalars.append((key, StreamedJSON.NESTED)))
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
            elif event == "end_map" or event == "end_array":
                depth -= 1
                if depth == 0:
                    break
            elif event == "map_key":
                _check_string(value)
                if depth == 1:
                    key = value
            else:
                if event == "string":
                    _check_string(value)
                if depth == 1:
                    scalars.append((key, value))
        if depth or next(events, None) is not None:
            raise ParseError("JSON parse error: the body is not one complete JSON object.")
        return scalars, arrays

