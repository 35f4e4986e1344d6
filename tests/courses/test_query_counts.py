"""The learner read endpoints make a fixed number of queries however much content there is (no N+1)."""

import pytest

from apps.courses.models import ChapterProgress
from apps.quiz.models import Question
from tests.courses.factories import make_chapter, make_part, make_term

pytestmark = pytest.mark.django_db

MANY = 12


@pytest.fixture
def library():
    """Two parts of MANY chapters each, every chapter linked to its predecessors, MANY terms all interlinked."""
    parts = [make_part("first", 1), make_part("second", 2)]
    chapters = []
    for p, part in enumerate(parts):
        for order in range(1, MANY + 1):
            chapters.append(make_chapter(f"c-{p}-{order}", part, order, prerequisites=chapters[-3:]))
    terms = [make_term(f"t-{i}", f"Term {i}", explanation=f"**Bold** {i}", aliases=[f"T{i}"]) for i in range(MANY)]
    for term in terms:
        term.related.set([other for other in terms if other != term])
        term.chapters.set(chapters[:MANY])
    middle = chapters[MANY]
    middle.glossary_terms.set(terms)
    for i in range(MANY):
        question = Question.objects.create(slug=f"q-{i}", kind="open", level="core", prompt="Why?", answer="Because.")
        question.chapters.add(middle)
    return {"chapters": chapters, "terms": terms, "middle": middle}


def test_chapter_list_queries_are_bounded(learner_client, library, django_assert_max_num_queries):
    for chapter in library["chapters"]:
        ChapterProgress.objects.create(user=learner_client.user, chapter=chapter, status="reading")
    with django_assert_max_num_queries(5):
        response = learner_client.get("/api/v1/chapters/?page_size=100")
    assert response.status_code == 200
    assert response.json()["count"] == 2 * MANY
    assert {row["status"] for row in response.json()["results"]} == {"reading"}


def test_chapter_detail_queries_are_bounded(learner_client, library, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):
        response = learner_client.get(f"/api/v1/chapters/{library['middle'].slug}/")
    assert response.status_code == 200
    body = response.json()
    assert len(body["prerequisites"]) == 3
    assert len(body["glossary_terms"]) == MANY
    assert len(body["questions"]) == MANY
    assert body["previous"]["slug"] == f"c-0-{MANY}"
    assert body["next"]["slug"] == "c-1-2"


def test_glossary_list_queries_are_bounded(learner_client, library, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        response = learner_client.get("/api/v1/glossary/?page_size=100")
    assert response.status_code == 200
    assert response.json()["count"] == MANY
    with django_assert_max_num_queries(5):
        response = learner_client.get("/api/v1/glossary/?q=t1")
    assert response.status_code == 200
    assert {row["slug"] for row in response.json()["results"]} == {"t-1", "t-10", "t-11"}


def test_glossary_detail_queries_are_bounded(learner_client, library, django_assert_max_num_queries):
    with django_assert_max_num_queries(5):
        response = learner_client.get("/api/v1/glossary/t-0/")
    assert response.status_code == 200
    body = response.json()
    assert len(body["related"]) == MANY - 1
    assert len(body["chapters"]) == MANY
    assert body["explanation_html"].startswith("<p><strong>Bold</strong> 0")
