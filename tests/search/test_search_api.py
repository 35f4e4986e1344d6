import pytest

from apps.core import content
from apps.core.models import Status
from apps.quiz.models import Question
from tests.courses.factories import make_chapter, make_part, make_term

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus():
    part = make_part("engine", 1)
    make_chapter("kv-cache-sizing", part, 1, title="KV cache sizing: MHA and GQA",
                 summary="Size the KV cache of any model.", body="## Bytes\n\nThe KV cache holds keys and values.")
    make_chapter("paged-attention", part, 2, title="PagedAttention and blocks",
                 summary="Blocks and block tables.", body="PagedAttention stores the cache in blocks.")
    make_chapter("secret-draft", part, 3, title="Secret cache plans", status=Status.DRAFT)
    make_term("kv-cache", "KV cache", "Keys and values <kept> per token.", aliases=["KV"])
    make_term("pagedattention", "PagedAttention", "Paged KV memory management.")
    Question.objects.create(slug="q-kv", kind="open", level="core", prompt="How big is the KV cache?", answer="Big.")
    Question.objects.create(slug="q-draft", kind="open", level="core", prompt="KV cache draft?", answer=".",
                            status=Status.DRAFT)


def search(client, q: str) -> list[tuple[str, str]]:
    response = client.get("/api/v1/search/", {"q": q})
    assert response.status_code == 200, response.json()
    return [(r["kind"], r["slug"]) for r in response.json()["results"]]


def test_search_finds_chapters_terms_and_published_questions_only(api_client, corpus):
    hits = search(api_client, "kv cache")
    assert ("term", "kv-cache") in hits[:2]
    assert ("chapter", "kv-cache-sizing") in hits[:3]
    assert ("question", "q-kv") in hits
    assert ("chapter", "secret-draft") not in hits
    assert ("question", "q-draft") not in hits


def test_search_tolerates_typos_and_joined_words(api_client, corpus):
    assert ("chapter", "kv-cache-sizing") in search(api_client, "kv cahce")[:3]
    assert search(api_client, "pagedattention")[0] in {("term", "pagedattention"), ("chapter", "paged-attention")}


def test_search_snippets_escape_html_and_mark_matches(api_client, corpus):
    results = api_client.get("/api/v1/search/", {"q": "kv cache"}).json()["results"]
    term = next(r for r in results if r["slug"] == "kv-cache")
    assert "<kept>" not in term["snippet"]
    assert "&lt;kept&gt;" in term["snippet"]
    assert "<mark>" in next(r for r in results if r["slug"] == "kv-cache-sizing")["snippet"]
    assert term["url"] == "/glossary/kv-cache"


def test_search_with_no_match_is_empty(api_client, corpus):
    assert search(api_client, "zebra") == []


@pytest.mark.parametrize("params", [{}, {"q": ""}, {"q": "   "}, {"q": "x" * 201}])
def test_search_rejects_missing_blank_or_long_query_naming_q(api_client, params):
    response = api_client.get("/api/v1/search/", params)
    assert response.status_code == 400
    assert "q" in response.json()["fields"]


def test_search_rejects_bad_limit(api_client):
    response = api_client.get("/api/v1/search/", {"q": "kv", "limit": 0})
    assert response.status_code == 400
    assert "limit" in response.json()["fields"]


@pytest.mark.slow
def test_search_typos_on_the_real_content(api_client, monkeypatch):
    steps = [s for s in content.STEPS if s.name.startswith(("apps.courses.", "apps.glossary."))]
    monkeypatch.setattr(content, "STEPS", steps)
    content.load_all()
    kv = search(api_client, "kv cahce")[:5]
    assert ("term", "kv-cache") in kv
    assert ("chapter", "kv-cache-sizing") in kv
    paged = search(api_client, "pagedattention")[:3]
    assert ("term", "pagedattention") in paged
    assert ("chapter", "paged-attention") in paged
    assert search(api_client, "TTFT")[0] == ("term", "ttft")
