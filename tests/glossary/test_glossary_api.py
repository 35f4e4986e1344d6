import pytest

from apps.core.models import Status
from apps.courses.models import Chapter, Part
from apps.glossary.models import Term

pytestmark = pytest.mark.django_db


def make_part(slug: str, order: int) -> Part:
    return Part.objects.create(slug=slug, title=slug.title(), order=order)


def make_chapter(slug: str, part: Part, order: int, **fields) -> Chapter:
    fields.setdefault("title", slug.title())
    return Chapter.objects.create(slug=slug, part=part, order=order, summary=".", body="Text.", **fields)


def make_term(slug: str, term: str, definition: str = "A definition.", **fields) -> Term:
    return Term.objects.create(slug=slug, term=term, definition=definition, **fields)


@pytest.fixture
def glossary():
    part = make_part("engine", 1)
    chapter = make_chapter("kv-cache-sizing", part, 1, title="KV cache sizing")
    draft_chapter = make_chapter("draft", part, 2, status=Status.DRAFT)
    kv = make_term("kv-cache", "KV cache", "Keys and values per token.", aliases=["KV"], simulators=["kv-cache"],
                   explanation="Grows with **context**.\n\n<script>alert(1)</script>")
    gqa = make_term("gqa", "Grouped-query attention", "Query heads share KV heads.", aliases=["GQA"])
    hidden = make_term("hidden-term", "Hidden term", "Not yet.", status=Status.DRAFT)
    kv.related.add(gqa, hidden)
    kv.chapters.add(chapter, draft_chapter)
    return {"kv": kv, "gqa": gqa}


def test_list_is_alphabetical_and_published_only(api_client, glossary):
    body = api_client.get("/api/v1/glossary/").json()
    assert [t["term"] for t in body["results"]] == ["Grouped-query attention", "KV cache"]
    assert body["results"][1] == {"slug": "kv-cache", "term": "KV cache", "aliases": ["KV"],
                                  "definition": "Keys and values per token."}


def test_list_filters_by_substring_of_term_or_alias(api_client, glossary):
    assert [t["slug"] for t in api_client.get("/api/v1/glossary/?q=cach").json()["results"]] == ["kv-cache"]
    assert [t["slug"] for t in api_client.get("/api/v1/glossary/?q=gqa").json()["results"]] == ["gqa"]
    assert api_client.get("/api/v1/glossary/?q=zebra").json()["count"] == 0


def test_list_accepts_page_size_500_and_caps_above(api_client, glossary):
    for index in range(3):
        make_term(f"t{index}", f"Term {index}")
    assert len(api_client.get("/api/v1/glossary/?page_size=500").json()["results"]) == 5
    assert len(api_client.get("/api/v1/glossary/?page_size=2").json()["results"]) == 2


def test_list_rejects_overlong_query(api_client, glossary):
    response = api_client.get("/api/v1/glossary/", {"q": "x" * 201})
    assert response.status_code == 400
    assert "q" in response.json()["fields"]


def test_list_query_count_is_constant(api_client, glossary, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        api_client.get("/api/v1/glossary/")


def test_detail_has_rendered_explanation_related_chapters_and_simulators(api_client, glossary):
    body = api_client.get("/api/v1/glossary/kv-cache/").json()
    assert body["term"] == "KV cache"
    assert body["aliases"] == ["KV"]
    assert "<strong>context</strong>" in body["explanation_html"]
    assert "<script>" not in body["explanation_html"]
    assert body["related"] == [{"slug": "gqa", "term": "Grouped-query attention", "definition": "Query heads share KV heads."}]
    assert body["chapters"] == [{"slug": "kv-cache-sizing", "title": "KV cache sizing"}]
    assert body["simulators"] == [{"name": "kv-cache", "url": "/lab/kv-cache"}]


def test_detail_unknown_or_draft_term_is_404(api_client, glossary):
    assert api_client.get("/api/v1/glossary/nope/").status_code == 404
    assert api_client.get("/api/v1/glossary/hidden-term/").status_code == 404


def test_authors_see_draft_terms(author_client, glossary):
    assert author_client.get("/api/v1/glossary/hidden-term/").status_code == 200
    assert Term.objects.count() == 3
