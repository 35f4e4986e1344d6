"""`sources` through the authoring API: declared on the chapter and question write serializers, stored by the
services, answered in the authoring representation; a bad list is a 400 naming the field, and nothing is stored."""

import pytest

from apps.courses.serializers import MAX_SOURCE_LENGTH, MAX_SOURCES

from .api_fixtures import API, CHOICE

pytestmark = pytest.mark.django_db

# Shaped as the fixtures write them: one string per source, a file and function at a release, a paper section.
SOURCES = ["vLLM v0.33.0, vllm/config/cache.py: CacheConfig.gpu_memory_utilization",
           "Kwon et al., PagedAttention (SOSP 2023), §4.5"]
NEW_CHAPTER = {"slug": "new-ch", "title": "New", "part": "p1", "order": 9, "summary": "S", "body": "## New\n\nText."}
NEW_QUESTION = {"slug": "new-q", "kind": "single_choice", "level": "core", "chapters": ["ch-one"], "prompt": "P?",
                "answer": "A.", "options": CHOICE}


@pytest.fixture
def author(content, client_for):
    return client_for("author")


def stored_chapter(slug):
    from apps.courses.models import Chapter

    return Chapter.objects.get(slug=slug).sources


def stored_question(pk):
    from apps.quiz.models import Question

    return Question.objects.get(pk=pk).sources


def test_a_new_chapter_keeps_its_sources(author):
    response = author.post(f"{API}/chapters/", {**NEW_CHAPTER, "sources": SOURCES}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["sources"] == SOURCES
    assert stored_chapter("new-ch") == SOURCES


def test_a_chapter_without_sources_is_answered_with_an_empty_list(author):
    response = author.post(f"{API}/chapters/", NEW_CHAPTER, format="json")
    assert response.status_code == 201 and response.json()["sources"] == [] and stored_chapter("new-ch") == []


def test_patching_a_chapter_replaces_its_sources_and_other_edits_keep_them(author):
    url = f"{API}/chapters/ch-draft/"
    response = author.patch(url, {"sources": SOURCES}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["sources"] == SOURCES and stored_chapter("ch-draft") == SOURCES
    response = author.patch(url, {"summary": "Revised."}, format="json")
    assert response.status_code == 200 and response.json()["sources"] == SOURCES
    assert stored_chapter("ch-draft") == SOURCES
    response = author.patch(url, {"sources": SOURCES[1:]}, format="json")
    assert response.status_code == 200 and stored_chapter("ch-draft") == SOURCES[1:]


def test_a_new_question_keeps_its_sources(author):
    response = author.post(f"{API}/questions/", {**NEW_QUESTION, "sources": SOURCES}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["sources"] == SOURCES
    assert stored_question(response.json()["id"]) == SOURCES


def test_patching_a_question_replaces_its_sources_and_leaves_the_key_version(author, content):
    url = f"{API}/questions/{content.draft_question.id}/"
    response = author.patch(url, {"sources": SOURCES}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["sources"] == SOURCES and response.json()["key_version"] == 1
    assert stored_question(content.draft_question.id) == SOURCES
    response = author.patch(url, {"prompt": "Revised?"}, format="json")
    assert response.status_code == 200 and response.json()["sources"] == SOURCES


BAD_SOURCES = [
    pytest.param("vLLM v0.33.0, vllm/config/cache.py", "sources", "list", id="not-a-list"),
    pytest.param({"url": "https://example.com"}, "sources", "list", id="an-object"),
    pytest.param(None, "sources", "null", id="null"),
    pytest.param([SOURCES[0], 5], "sources.1", "string", id="a-number-item"),
    pytest.param([{"url": "https://example.com"}], "sources.0", "string", id="an-object-item"),
    pytest.param([None], "sources.0", "null", id="a-null-item"),
    pytest.param(["   "], "sources.0", "blank", id="a-blank-item"),
    pytest.param([SOURCES[0], "x" * (MAX_SOURCE_LENGTH + 1)], "sources.1", str(MAX_SOURCE_LENGTH), id="too-long"),
    pytest.param([f"Source {i}" for i in range(MAX_SOURCES + 1)], "sources", str(MAX_SOURCES), id="too-many"),
]


def assert_refused(response, field, text):
    assert response.status_code == 400, response.content[:600]
    fields = response.json()["fields"]
    assert list(fields) == [field], fields
    assert text.lower() in fields[field][0].lower(), fields


@pytest.mark.parametrize(("sources", "field", "text"), BAD_SOURCES)
def test_bad_chapter_sources_are_a_400_naming_the_field(author, sources, field, text):
    assert_refused(author.post(f"{API}/chapters/", {**NEW_CHAPTER, "sources": sources}, format="json"), field, text)
    assert_refused(author.patch(f"{API}/chapters/ch-draft/", {"sources": sources}, format="json"), field, text)
    from apps.courses.models import Chapter

    assert not Chapter.objects.filter(slug="new-ch").exists() and stored_chapter("ch-draft") == []


@pytest.mark.parametrize(("sources", "field", "text"), BAD_SOURCES)
def test_bad_question_sources_are_a_400_naming_the_field(author, content, sources, field, text):
    assert_refused(author.post(f"{API}/questions/", {**NEW_QUESTION, "sources": sources}, format="json"), field, text)
    url = f"{API}/questions/{content.draft_question.id}/"
    assert_refused(author.patch(url, {"sources": sources}, format="json"), field, text)
    from apps.quiz.models import Question

    assert not Question.objects.filter(slug="new-q").exists() and stored_question(content.draft_question.id) == []


def test_a_nul_character_in_a_source_is_a_400_and_nothing_is_stored(author, content):
    # The JSON parser refuses NUL anywhere in a body (PostgreSQL cannot store it), before any serializer runs.
    assert author.post(f"{API}/chapters/", {**NEW_CHAPTER, "sources": ["a\u0000b"]}, format="json").status_code == 400
    url = f"{API}/questions/{content.draft_question.id}/"
    assert author.patch(url, {"sources": ["a\u0000b"]}, format="json").status_code == 400
    assert stored_question(content.draft_question.id) == []


def test_the_limits_themselves_are_accepted(author):
    longest = ["x" * MAX_SOURCE_LENGTH] * MAX_SOURCES
    response = author.post(f"{API}/chapters/", {**NEW_CHAPTER, "sources": longest}, format="json")
    assert response.status_code == 201, response.content[:600]
    assert stored_chapter("new-ch") == longest
