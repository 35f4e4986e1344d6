"""Cached glossary reads follow every change at once; 304 only while the term and list are unchanged."""

import pytest

from apps.core.models import Status
from apps.glossary.models import Term

pytestmark = pytest.mark.django_db


@pytest.fixture
def terms():
    kv = Term.objects.create(slug="kv-cache", term="KV cache", definition="Keys and values.", explanation="**Old**.")
    gqa = Term.objects.create(slug="gqa", term="GQA", definition="Shared KV heads.")
    kv.related.add(gqa)
    return {"kv": kv, "gqa": gqa}


def test_author_edit_retires_the_cached_term_and_list(api_client, author_client, terms):
    before = api_client.get("/api/v1/glossary/kv-cache/")
    assert "<strong>Old</strong>" in before.json()["explanation_html"]
    assert api_client.get("/api/v1/glossary/").json()["count"] == 2
    response = author_client.patch("/api/v1/glossary/kv-cache/", {"explanation": "**New**.", "definition": "K and V."},
                                   format="json")
    assert response.status_code == 200, response.content
    after = api_client.get("/api/v1/glossary/kv-cache/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert "<strong>New</strong>" in after.json()["explanation_html"]
    listed = {row["slug"]: row["definition"] for row in api_client.get("/api/v1/glossary/").json()["results"]}
    assert listed["kv-cache"] == "K and V."
    # A related term's page shows the new definition of its link... and its own edits.
    terms["gqa"].definition = "Query heads share KV heads."
    terms["gqa"].save()
    assert api_client.get("/api/v1/glossary/kv-cache/").json()["related"][0]["definition"] == "Query heads share KV heads."


def test_unpublish_and_publish_are_seen_at_once(api_client, author_client, terms):
    assert api_client.get("/api/v1/glossary/gqa/").status_code == 200
    terms["gqa"].status = Status.DRAFT
    terms["gqa"].save()
    assert api_client.get("/api/v1/glossary/gqa/").status_code == 404
    assert api_client.get("/api/v1/glossary/kv-cache/").json()["related"] == []
    assert [row["slug"] for row in api_client.get("/api/v1/glossary/").json()["results"]] == ["kv-cache"]
    # Authors still preview the draft, from their own cache entry.
    assert author_client.get("/api/v1/glossary/gqa/").status_code == 200
    assert api_client.get("/api/v1/glossary/gqa/").status_code == 404
    terms["gqa"].status = Status.PUBLISHED
    terms["gqa"].save()
    assert api_client.get("/api/v1/glossary/gqa/").status_code == 200
    author_client.delete("/api/v1/glossary/gqa/")
    assert api_client.get("/api/v1/glossary/gqa/").status_code == 404
    assert [row["slug"] for row in api_client.get("/api/v1/glossary/").json()["results"]] == ["kv-cache"]


def test_search_queries_are_cached_apart(api_client, terms):
    assert [row["slug"] for row in api_client.get("/api/v1/glossary/?q=kv").json()["results"]] == ["kv-cache"]
    assert {row["slug"] for row in api_client.get("/api/v1/glossary/").json()["results"]} == {"kv-cache", "gqa"}


@pytest.mark.parametrize("path", ["/api/v1/glossary/", "/api/v1/glossary/kv-cache/", "/api/v1/glossary/?q=kv"])
def test_matching_if_none_match_is_a_304(api_client, learner_client, terms, path):
    for client in (api_client, learner_client):
        first = client.get(path)
        assert first.status_code == 200
        repeat = client.get(path, HTTP_IF_NONE_MATCH=f'W/{first["ETag"]}, "other"')
        assert repeat.status_code == 304 and repeat["ETag"] == first["ETag"]
