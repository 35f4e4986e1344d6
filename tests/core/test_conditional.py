"""The conditional-GET helper and the content version, on their own."""

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from apps.core import cache_keys
from apps.core.conditional import conditional, if_none_match, make_etag


def test_etag_matching_follows_the_rfc():
    request = RequestFactory().get("/", HTTP_IF_NONE_MATCH='"a", W/"b"')
    assert if_none_match(request, '"a"') and if_none_match(request, '"b"') and if_none_match(request, 'W/"a"')
    assert not if_none_match(request, '"c"')
    assert if_none_match(RequestFactory().get("/", HTTP_IF_NONE_MATCH="*"), '"x"')
    assert not if_none_match(RequestFactory().get("/"), '"x"')


def test_conditional_tags_and_answers_304():
    factory = RequestFactory()
    response = conditional(factory.get("/"), HttpResponse(b"body"))
    assert response.status_code == 200 and response["ETag"].startswith('"')
    assert response["Cache-Control"] == "no-cache"
    assert "Authorization" in response["Vary"] and "Cookie" in response["Vary"]
    again = conditional(factory.get("/", HTTP_IF_NONE_MATCH=response["ETag"]), HttpResponse(b"body"))
    assert again.status_code == 304 and again["ETag"] == response["ETag"]
    changed = conditional(factory.get("/", HTTP_IF_NONE_MATCH=response["ETag"]), HttpResponse(b"other"))
    assert changed.status_code == 200
    # A tag the view made itself is kept; errors and writes are left alone.
    own = HttpResponse(b"body")
    own["ETag"] = make_etag("chapter", 3)
    assert conditional(factory.get("/"), own)["ETag"] == make_etag("chapter", 3)
    assert not conditional(factory.get("/"), HttpResponse(b"x", status=404)).has_header("ETag")
    assert not conditional(factory.post("/"), HttpResponse(b"x")).has_header("ETag")


@pytest.mark.django_db
def test_content_version_moves_on_bump_and_survives_eviction():
    from django.core.cache import cache

    first = cache_keys.content_version()
    assert cache_keys.content_version() == first
    cache_keys.bump_content_version()
    second = cache_keys.content_version()
    assert second > first
    assert cache_keys.body_key("x", 1) != cache_keys.body_key("x", 1, version=first)
    cache.delete(cache_keys.VERSION_KEY)  # evicted: restarts from the clock, above any version in use
    assert cache_keys.content_version() > second
    calls = []
    assert cache_keys.cached_body("k", lambda: calls.append(1) or {"a": 1}) == {"a": 1}
    assert cache_keys.cached_body("k", lambda: calls.append(1) or {"a": 2}) == {"a": 1}
    assert calls == [1]


def test_rendered_rows_append_each_readers_field_to_each_row():
    import json

    from apps.core.conditional import RenderedRows, json_rows_response

    page = {"count": 2, "next": None, "results": [{"slug": "a", "status": None}, {"slug": "b", "status": None}]}
    rendered = RenderedRows.of(page, without="status")
    first = json_rows_response(rendered, "status", [None, "read"])
    assert json.loads(first.content) == {"count": 2, "next": None,
                                         "results": [{"slug": "a", "status": None}, {"slug": "b", "status": "read"}]}
    second = json_rows_response(rendered, "status", ["read", None])
    assert json.loads(second.content)["results"][0] == {"slug": "a", "status": "read"}
    assert first["ETag"] != second["ETag"]  # the tag names the reader's fields too
    bare = json_rows_response(RenderedRows.of([{"slug": "a"}], without="status"), "status", ["understood"])
    assert json.loads(bare.content) == [{"slug": "a", "status": "understood"}]
