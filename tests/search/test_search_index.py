"""The stored search vectors (PostgreSQL) are never stale, and cached search answers are retired by any change."""

import pytest
from django.contrib.postgres.search import SearchVector
from django.db import connection
from django.db.models import TextField
from django.db.models.functions import Cast
from django.test.utils import CaptureQueriesContext

from apps.core.cache_keys import bump_content_version
from apps.core.models import Status
from apps.courses.models import Chapter
from apps.glossary.models import Term
from apps.quiz.models import Question
from tests.courses.factories import make_chapter, make_part, make_term

pytestmark = pytest.mark.django_db
postgres_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="stored vectors are PostgreSQL's")


def english(field, weight):
    return SearchVector(field, weight=weight, config="english")


# What search ranked before vectors were stored: each row's vector built in the query.
COMPUTED = {
    Chapter: english("title", "A") + english("summary", "B") + english("body", "C"),
    Term: english("term", "A") + english(Cast("aliases", TextField()), "A") + english("definition", "B")
    + english("explanation", "C"),
    Question: english("prompt", "B") + english("answer", "D"),
}


@pytest.fixture
def corpus():
    part = make_part("engine", 1)
    make_chapter("kv-cache-sizing", part, 1, title="KV cache sizing", summary="Size the KV cache.",
                 body="The KV cache holds keys and values.")
    make_term("kv-cache", "KV cache", "Keys and values kept per token.", aliases=["KV"], explanation="*Grows* fast.")
    Question.objects.create(slug="q-kv", kind="open", level="core", prompt="How big is the KV cache?", answer="Big.")
    return part


def slugs(client, q: str) -> list[str]:
    response = client.get("/api/v1/search/", {"q": q})
    assert response.status_code == 200, response.json()
    return [r["slug"] for r in response.json()["results"]]


@postgres_only
@pytest.mark.parametrize("model", [Chapter, Term, Question])
def test_stored_vector_equals_the_vector_built_from_the_fields(corpus, model):
    rows = model.objects.annotate(computed=COMPUTED[model]).values_list("search_vector", "computed")
    assert rows and all(stored == computed for stored, computed in rows)


@postgres_only
def test_update_without_save_still_refreshes_the_vector(corpus):
    """A ``QuerySet.update()`` sends no signal: the database trigger keeps the vector right anyway."""
    Chapter.objects.filter(slug="kv-cache-sizing").update(body="Speculative decoding drafts tokens.")
    stored, computed = Chapter.objects.annotate(computed=COMPUTED[Chapter]).values_list("search_vector", "computed")[0]
    assert stored == computed
    assert "specul" in stored and "valu" not in stored


def test_author_edit_to_a_chapter_is_found_by_search_at_once(api_client, author_client, corpus):
    assert slugs(api_client, "zeppelin") == []  # an answer now cached
    response = author_client.patch("/api/v1/chapters/kv-cache-sizing/", {"body": "A zeppelin of keys."}, format="json")
    assert response.status_code == 200, response.json()
    assert slugs(api_client, "zeppelin") == ["kv-cache-sizing"]
    assert slugs(api_client, "values") == ["kv-cache"]  # the old body's words are gone from the chapter


def test_new_term_unpublished_chapter_and_bulk_update_reach_search_at_once(api_client, corpus):
    assert "kv-cache-sizing" in slugs(api_client, "kv cache")
    Chapter.objects.filter(slug="kv-cache-sizing").update(status=Status.DRAFT)
    bump_content_version()  # as code that changes content with update() must
    assert "kv-cache-sizing" not in slugs(api_client, "kv cache")
    make_term("zeppelin", "Zeppelin", "An airship.")
    assert slugs(api_client, "zeppelin") == ["zeppelin"]


def test_publishing_a_part_reaches_search_at_once(api_client, corpus):
    part = make_part("later", 2, status=Status.DRAFT)
    make_chapter("airships", part, 1, title="Airships", body="Zeppelin.")
    assert slugs(api_client, "zeppelin") == []
    part.status = Status.PUBLISHED
    part.save()
    assert slugs(api_client, "zeppelin") == ["airships"]


def test_a_repeated_search_is_answered_from_the_cache_without_queries(api_client, corpus):
    first = api_client.get("/api/v1/search/", {"q": "kv cache", "limit": 5}).json()
    with CaptureQueriesContext(connection) as queries:
        again = api_client.get("/api/v1/search/", {"q": " kv cache ", "limit": 5}).json()
    assert again == first
    assert len(queries) == 0
    other_limit = api_client.get("/api/v1/search/", {"q": "kv cache", "limit": 1}).json()
    assert len(other_limit["results"]) == 1
