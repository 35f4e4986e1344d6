"""Conditional GET for API reads: a strong ETag on every 200 answer to GET/HEAD, and 304 Not Modified when the
request's If-None-Match names it.

Answers that differ by reader (progress fields, an author's drafts) are safe: the tag is either a hash of the body
itself or, when a view knows a cheaper one (``response["ETag"] = make_etag(...)``), one made from everything the body
depends on, reader included. Every such answer also carries ``Vary: Authorization, Cookie`` so a shared cache never
hands one reader's copy to another, and ``Cache-Control: no-cache`` so clients revalidate each time (an author's
edit shows at once: the next conditional request gets the new body, not a 304).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers
from rest_framework.renderers import JSONRenderer

VARY = ("Authorization", "Cookie")


def make_etag(*parts: Any) -> str:
    """A strong entity tag from the parts a body depends on (reprs hashed)."""
    return '"' + hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest() + '"'


def body_etag(content: bytes) -> str:
    return '"' + hashlib.blake2b(content, digest_size=16).hexdigest() + '"'


@dataclass(frozen=True)
class RenderedBody:
    """A JSON body rendered once (as DRF's renderer would) with its tag: what a cached read keeps, so that a hit
    neither renders nor hashes 20 KB again."""

    content: bytes
    etag: str

    @classmethod
    def of(cls, data: Any) -> RenderedBody:
        content = JSONRenderer().render(data)
        return cls(content, body_etag(content))


def _with_members(rendered_object: bytes, members: bytes) -> bytes:
    """A rendered JSON object with ``members`` (``"name":value`` pairs, rendered) added at its end."""
    return rendered_object[:-1] + (b"," if rendered_object != b"{}" else b"") + members + b"}"


def _tagged_json(content: bytes, etag: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/json")
    response["ETag"] = etag
    return response


def json_response(body: RenderedBody, **reader_fields: Any) -> HttpResponse:
    """``body`` (a JSON object) with per-reader fields appended (they must not be in it already), and an ETag made
    from the body's tag and those fields, so it differs per reader exactly where the content does."""
    content, etag = body.content, body.etag
    if reader_fields:
        extra = JSONRenderer().render(reader_fields)
        content = _with_members(content, extra[1:-1])
        etag = make_etag(etag, reader_fields)
    return _tagged_json(content, etag)


@dataclass(frozen=True)
class RenderedRows:
    """A list (or a page with ``results``) whose rows each get a per-reader field: the text around the rows and each
    row without that field, rendered once, so an answer is a join of bytes and not a render of the whole list."""

    head: bytes
    rows: tuple[bytes, ...]
    tail: bytes
    etag: str

    @classmethod
    def of(cls, data: list | dict, *, without: str) -> RenderedRows:
        render = JSONRenderer().render
        rows = data["results"] if isinstance(data, dict) else data
        rendered = tuple(render({k: v for k, v in row.items() if k != without}) for row in rows)
        if isinstance(data, dict):
            around = render({**data, "results": []})
            head, tail = around.split(b'"results":[]', 1)
            head, tail = head + b'"results":[', b"]" + tail
        else:
            head, tail = b"[", b"]"
        return cls(head, rendered, tail, make_etag(head, rendered, tail))


def json_rows_response(body: RenderedRows, field: str, values: list) -> HttpResponse:
    """``body`` with ``field`` appended to each row, the i-th row getting ``values[i]``."""
    render = JSONRenderer().render
    name = render(field) + b":"
    encoded = {}
    parts = []
    for row, value in zip(body.rows, values, strict=True):
        if value not in encoded:
            encoded[value] = render([value])[1:-1]  # DRF renders a bare None as no bytes at all
        parts.append(_with_members(row, name + encoded[value]))
    return _tagged_json(body.head + b",".join(parts) + body.tail, make_etag(body.etag, field, values))


def if_none_match(request, etag: str) -> bool:
    """Whether the request's If-None-Match matches ``etag`` (weak comparison, as RFC 9110 asks for GET)."""
    header = request.headers.get("If-None-Match")
    if not header:
        return False
    if header.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in header.split(","))


def conditional(request, response):
    """Adds ETag, Vary and Cache-Control to a 200 answer to GET/HEAD, or turns it into a 304 when the tag matches."""
    if request.method not in ("GET", "HEAD") or response.status_code != 200 or response.streaming or response.cookies:
        return response  # an answer that sets a cookie is left alone: a 304 would drop it
    patch_vary_headers(response, VARY)
    if not response.has_header("Cache-Control"):
        response["Cache-Control"] = "no-cache"
    if not response.has_header("ETag"):
        if hasattr(response, "render") and not getattr(response, "is_rendered", True):
            response.render()
        response["ETag"] = body_etag(response.content)
    if not if_none_match(request, response["ETag"]):
        return response
    not_modified = HttpResponseNotModified()
    for header in ("ETag", "Vary", "Cache-Control"):
        not_modified[header] = response[header]
    return not_modified
