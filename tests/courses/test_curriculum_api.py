import pytest

from apps.core.models import Status
from apps.courses.models import ChapterProgress
from apps.glossary.models import Term
from apps.quiz.models import Question

from .factories import make_chapter, make_part, make_term

pytestmark = pytest.mark.django_db


@pytest.fixture
def book():
    """Two parts: basics (intro, attention) and serving (batching, draft-chapter)."""
    basics = make_part("basics", 1, title="Basics")
    serving = make_part("serving", 2, title="Serving")
    intro = make_chapter("intro", basics, 1, level="core", minutes=5)
    attention = make_chapter("attention", basics, 2, prerequisites=[intro], level="mid", simulators=["kv-cache"])
    batching = make_chapter("batching", serving, 1, prerequisites=[attention], level="senior")
    make_chapter("draft-chapter", serving, 2, status=Status.DRAFT)
    return {"intro": intro, "attention": attention, "batching": batching}


def test_parts_list_counts_published_chapters_and_hides_progress_when_signed_out(api_client, book):
    response = api_client.get("/api/v1/parts/")
    assert response.status_code == 200
    assert [(p["slug"], p["chapter_count"], p["understood_count"]) for p in response.json()] == [
        ("basics", 2, None),
        ("serving", 1, None),
    ]


def test_parts_list_reports_understood_chapters_for_the_signed_in_user(learner_client, make_user, book):
    ChapterProgress.objects.create(user=learner_client.user, chapter=book["intro"], status="understood")
    ChapterProgress.objects.create(user=learner_client.user, chapter=book["attention"], status="reading")
    ChapterProgress.objects.create(user=make_user(), chapter=book["batching"], status="understood")
    parts = learner_client.get("/api/v1/parts/").json()
    assert [(p["slug"], p["understood_count"]) for p in parts] == [("basics", 1), ("serving", 0)]


def test_chapter_list_is_paginated_in_curriculum_order(api_client, book):
    response = api_client.get("/api/v1/chapters/?page_size=2")
    body = response.json()
    assert body["count"] == 3
    assert [c["slug"] for c in body["results"]] == ["intro", "attention"]
    assert body["next"] is not None


def test_chapter_list_filters_by_part_and_level(api_client, book):
    assert [c["slug"] for c in api_client.get("/api/v1/chapters/?part=serving").json()["results"]] == ["batching"]
    assert [c["slug"] for c in api_client.get("/api/v1/chapters/?level=mid").json()["results"]] == ["attention"]


def test_chapter_list_rejects_unknown_level(api_client, book):
    response = api_client.get("/api/v1/chapters/?level=guru")
    assert response.status_code == 400
    assert "level" in response.json()["fields"]


def test_chapter_list_query_count_does_not_grow_with_chapters(api_client, book, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        api_client.get("/api/v1/chapters/")


def test_authors_see_draft_chapters_and_learners_do_not(api_client, author_client, book):
    assert api_client.get("/api/v1/chapters/draft-chapter/").status_code == 404
    assert author_client.get("/api/v1/chapters/draft-chapter/").status_code == 200


def test_chapter_detail_has_reader_fields(api_client, book):
    term = make_term("kv-cache", "KV cache", "Keys and values kept per token.")
    make_term("hidden", "Hidden", status=Status.DRAFT)
    book["attention"].glossary_terms.add(term, Term.objects.get(slug="hidden"))
    published = Question.objects.create(slug="q-pub", kind="open", level="core", prompt="Why?", answer="Because.")
    draft = Question.objects.create(slug="q-draft", kind="open", level="mid", prompt="?", answer=".", status=Status.DRAFT)
    published.chapters.add(book["attention"])
    draft.chapters.add(book["attention"])

    body = api_client.get("/api/v1/chapters/attention/").json()
    assert body["title"] == "Attention"
    assert body["part"] == {"slug": "basics", "title": "Basics"}
    assert body["level"] == "mid"
    assert body["prerequisites"] == [{"slug": "intro", "title": "Intro"}]
    assert body["simulators"] == [{"name": "kv-cache", "url": "/lab/kv-cache"}]
    assert body["glossary_terms"] == [{"slug": "kv-cache", "term": "KV cache", "definition": "Keys and values kept per token."}]
    assert body["questions"] == [{"id": published.id, "slug": "q-pub", "kind": "open", "level": "core"}]
    assert body["previous"] == {"slug": "intro", "title": "Intro"}
    assert body["next"] == {"slug": "batching", "title": "Batching"}
    assert body["status"] is None


def test_previous_and_next_cross_part_boundaries(api_client, book):
    first = api_client.get("/api/v1/chapters/intro/").json()
    last = api_client.get("/api/v1/chapters/batching/").json()
    assert first["previous"] is None
    assert last["previous"]["slug"] == "attention"
    assert last["next"] is None


def test_chapter_detail_shows_own_progress_only(learner_client, make_user, book):
    ChapterProgress.objects.create(user=make_user(), chapter=book["intro"], status="understood")
    assert learner_client.get("/api/v1/chapters/intro/").json()["status"] is None
    ChapterProgress.objects.create(user=learner_client.user, chapter=book["intro"], status="reading")
    assert learner_client.get("/api/v1/chapters/intro/").json()["status"] == "reading"


def test_unknown_chapter_is_404(api_client, book):
    response = api_client.get("/api/v1/chapters/no-such-chapter/")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
