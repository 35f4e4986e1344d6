"""Cached chapter reads are never stale: an author's edit, a publish or unpublish, a glossary or question change
retires the cached page and list at once; conditional requests get 304 only while nothing changed."""

import pytest

from apps.core.models import Status
from apps.courses.models import ChapterProgress
from apps.quiz.models import Question
from tests.courses.factories import make_chapter, make_part, make_term

pytestmark = pytest.mark.django_db

PAGE = "/api/v1/chapters/prefill/"
LIST = "/api/v1/chapters/"


@pytest.fixture
def course():
    part = make_part("engine", 1)
    first = make_chapter("prefill", part, 1, title="Prefill", body="Prefill reads the **prompt**.")
    second = make_chapter("decode", part, 2, title="Decode")
    term = make_term("kv-cache", "KV cache", "Keys and values per token.")
    first.glossary_terms.set([term])
    return {"part": part, "first": first, "second": second, "term": term}


def test_author_edit_is_seen_at_once(api_client, author_client, course):
    before = api_client.get(PAGE)
    assert before.json()["title"] == "Prefill"
    assert api_client.get(LIST).json()["results"][0]["title"] == "Prefill"
    edited = author_client.patch(PAGE, {"title": "Prefill, edited", "body": "New **text**."}, format="json")
    assert edited.status_code == 200, edited.content
    after = api_client.get(PAGE)
    assert after.json()["title"] == "Prefill, edited"
    assert "<strong>text</strong>" in after.json()["body_html"]
    assert after["ETag"] != before["ETag"]
    assert api_client.get(LIST).json()["results"][0]["title"] == "Prefill, edited"
    # The next chapter's page names it as its previous one.
    assert api_client.get("/api/v1/chapters/decode/").json()["previous"]["title"] == "Prefill, edited"
    # A client holding the old tag gets the new body, not a 304.
    assert api_client.get(PAGE, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 200


def test_publish_and_unpublish_are_seen_at_once(api_client, course):
    course["second"].status = Status.DRAFT
    course["second"].save()
    assert api_client.get("/api/v1/chapters/decode/").status_code == 404
    assert [row["slug"] for row in api_client.get(LIST).json()["results"]] == ["prefill"]
    assert api_client.get(PAGE).json()["next"] is None
    course["second"].status = Status.PUBLISHED  # what the admin's bulk publish does, object by object
    course["second"].save()
    assert api_client.get("/api/v1/chapters/decode/").status_code == 200
    assert [row["slug"] for row in api_client.get(LIST).json()["results"]] == ["prefill", "decode"]
    assert api_client.get(PAGE).json()["next"]["slug"] == "decode"
    course["first"].status = Status.DRAFT
    course["first"].save()
    assert api_client.get(PAGE).status_code == 404


def test_glossary_and_question_changes_reach_the_cached_page(api_client, author_client, course):
    assert api_client.get(PAGE).json()["glossary_terms"][0]["definition"] == "Keys and values per token."
    response = author_client.patch("/api/v1/glossary/kv-cache/", {"definition": "Cached keys and values."}, format="json")
    assert response.status_code == 200, response.content
    assert api_client.get(PAGE).json()["glossary_terms"][0]["definition"] == "Cached keys and values."
    question = Question.objects.create(slug="why", kind="open", level="core", prompt="Why?", answer="Because.")
    question.chapters.add(course["first"])
    assert [q["slug"] for q in api_client.get(PAGE).json()["questions"]] == ["why"]
    question.status = Status.DRAFT
    question.save()
    assert api_client.get(PAGE).json()["questions"] == []


def test_invalidation_also_after_commit(api_client, course, django_capture_on_commit_callbacks):
    api_client.get(PAGE)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        course["first"].title = "Prefill again"
        course["first"].save()
    assert callbacks  # the second bump, for readers that cached the old rows while the transaction was open
    assert api_client.get(PAGE).json()["title"] == "Prefill again"


def test_progress_is_per_reader_on_a_shared_cached_page(learner_client, api_client, make_user, course):
    ChapterProgress.objects.create(user=learner_client.user, chapter=course["first"], status="understood")
    mine = learner_client.get(PAGE)
    assert mine.json()["status"] == "understood"
    assert api_client.get(PAGE).json()["status"] is None
    listed = {row["slug"]: row["status"] for row in learner_client.get(LIST).json()["results"]}
    assert listed == {"prefill": "understood", "decode": None}
    assert {row["status"] for row in api_client.get(LIST).json()["results"]} == {None}
    # The tag depends on the reader's bits, and a shared cache is told the answer varies by credentials.
    anonymous = api_client.get(PAGE)
    assert anonymous["ETag"] != mine["ETag"]
    assert {"Authorization", "Cookie"} <= {v.strip() for v in mine["Vary"].split(",")}
    assert api_client.get(PAGE, HTTP_IF_NONE_MATCH=mine["ETag"]).status_code == 200
    # Progress changes the reader's tag: no 304 for the old one.
    learner_client.put("/api/v1/chapters/prefill/progress/", {"status": "reading"}, format="json")
    assert learner_client.get(PAGE, HTTP_IF_NONE_MATCH=mine["ETag"]).json()["status"] == "reading"


def test_drafts_cached_for_authors_never_reach_learners(api_client, author_client, course):
    make_chapter("draft-one", course["part"], 3, status=Status.DRAFT)
    assert len(author_client.get(LIST).json()["results"]) == 3
    assert author_client.get("/api/v1/chapters/draft-one/").status_code == 200
    assert len(api_client.get(LIST).json()["results"]) == 2
    assert api_client.get("/api/v1/chapters/draft-one/").status_code == 404


@pytest.mark.parametrize("path", [PAGE, LIST, "/api/v1/parts/", "/api/v1/questions/", "/api/v1/concept-map/",
                                  "/api/v1/chapters/?part=engine"])
def test_matching_if_none_match_is_a_304(api_client, learner_client, course, path):
    for client in (api_client, learner_client):
        first = client.get(path)
        assert first.status_code == 200 and first["ETag"]
        repeat = client.get(path, HTTP_IF_NONE_MATCH=first["ETag"])
        assert repeat.status_code == 304
        assert repeat["ETag"] == first["ETag"]
        assert repeat.content == b""
        assert client.get(path, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200
