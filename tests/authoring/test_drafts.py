"""Drafts are invisible to learners and anonymous readers everywhere they look; authors preview them as learners
will see them once published."""

import pytest

from .api_fixtures import API, CHOICE

pytestmark = pytest.mark.django_db

READERS = ["anonymous", "learner"]


def slugs(items) -> set[str]:
    return {item["slug"] for item in items}


@pytest.mark.parametrize("role", READERS)
def test_curriculum_hides_draft_chapters(content, client_for, role):
    client = client_for(role)
    assert slugs(client.get(f"{API}/chapters/").json()["results"]) == {"ch-one", "ch-two"}
    assert client.get(f"{API}/chapters/ch-draft/").status_code == 404
    two = client.get(f"{API}/chapters/ch-two/").json()
    assert two["previous"]["slug"] == "ch-one" and two["next"] is None
    concept = client.get(f"{API}/concept-map/").json()
    assert {node["slug"] for node in concept["nodes"]} == {"ch-one", "ch-two"}
    assert concept["edges"] == [{"source": "ch-one", "target": "ch-two"}]
    assert client.get(f"{API}/concept-map/path/", {"to": "ch-draft"}).status_code == 404
    assert [c["slug"] for c in client.get(f"{API}/concept-map/path/", {"to": "ch-two"}).json()["path"]] == ["ch-one", "ch-two"]
    assert client.get(f"{API}/parts/").json()[0]["chapter_count"] == 2


def test_authors_preview_drafts_in_place(content, client_for):
    author = client_for("author")
    draft = author.get(f"{API}/chapters/ch-draft/").json()
    assert draft["title"] == "Zanzibar secret chapter" and draft["previous"]["slug"] == "ch-two"
    assert author.get(f"{API}/chapters/ch-two/").json()["next"]["slug"] == "ch-draft"
    assert author.get(f"{API}/questions/{content.draft_question.id}/").json()["slug"] == "q-draft"
    assert author.get(f"{API}/glossary/draft-term/").status_code == 200


@pytest.mark.parametrize("role", READERS)
def test_chapter_page_lists_only_published_questions_and_terms(content, client_for, role):
    one = client_for(role).get(f"{API}/chapters/ch-one/").json()
    assert [q["slug"] for q in one["questions"]] == ["q-pub"]
    assert [t["slug"] for t in one["glossary_terms"]] == ["kv-cache"]
    assert "Quokka" not in one["body_html"]


@pytest.mark.parametrize("role", READERS)
def test_search_finds_no_drafts(content, client_for, role):
    client = client_for(role)
    for word in ("zanzibar", "quokka", "wombat"):
        assert client.get(f"{API}/search/", {"q": word}).json()["results"] == [], word
    assert client.get(f"{API}/search/", {"q": "decode"}).json()["results"][0]["slug"] == "q-pub"


@pytest.mark.parametrize("role", READERS)
def test_question_catalogue_hides_drafts_and_draft_links(content, client_for, role):
    client = client_for(role)
    listed = client.get(f"{API}/questions/").json()["results"]
    assert [q["slug"] for q in listed] == ["q-pub"]
    assert [c["slug"] for c in listed[0]["chapters"]] == ["ch-one"]  # the draft chapter link is hidden
    assert client.get(f"{API}/questions/{content.draft_question.id}/").status_code == 404
    check = client.post(f"{API}/questions/{content.draft_question.id}/check/", {"answer": {"selected": [0]}}, format="json")
    assert check.status_code == 404
    assert client.get(f"{API}/topics/").json()["results"] == [{"slug": "memory", "title": "Memory", "question_count": 1}]


@pytest.mark.parametrize("role", READERS)
def test_practice_sessions_draw_published_questions_only(content, client_for, role):
    session = client_for(role).post(f"{API}/practice/sessions/", {"size": 50}, format="json").json()
    assert [q["slug"] for q in session["questions"]] == ["q-pub"]
    assert [c["slug"] for c in session["questions"][0]["chapters"]] == ["ch-one"]


def test_draft_question_is_previewed_then_published_into_practice(content, client_for):
    author, learner = client_for("author"), client_for("learner")
    created = author.post(f"{API}/questions/", {"slug": "fresh-q", "kind": "single_choice", "level": "staff",
                                                  "chapters": ["ch-two"], "prompt": "Fresh?", "answer": "Yes.",
                                                  "options": CHOICE}, format="json")
    assert created.status_code == 201 and created.json()["status"] == "draft"
    qid = created.json()["id"]
    preview = author.get(f"{API}/questions/{qid}/").json()
    assert sorted(preview["choices"]["options"]) == sorted(option["text"] for option in CHOICE)
    assert learner.get(f"{API}/questions/{qid}/").status_code == 404
    filters = {"level": ["staff"]}
    refused = learner.post(f"{API}/practice/sessions/", filters, format="json")
    assert refused.status_code == 400 and "filters" in refused.json()["fields"]
    assert author.patch(f"{API}/questions/{qid}/", {"status": "published"}, format="json").status_code == 200
    session = learner.post(f"{API}/practice/sessions/", filters, format="json").json()
    assert [q["id"] for q in session["questions"]] == [qid]


def test_flashcards_follow_publication(content, client_for, django_capture_on_commit_callbacks):
    from apps.flashcards.content import sync_all_cards
    from apps.flashcards.models import Card

    sync_all_cards()
    learner, author = client_for("learner"), client_for("author")

    def all_deck_total() -> int:
        decks = learner.get(f"{API}/flashcards/decks/").json()
        decks = decks["results"] if isinstance(decks, dict) else decks
        return next(deck["total"] for deck in decks if deck["slug"] == "all")

    before = all_deck_total()
    assert not Card.objects.filter(source_id=content.draft_question.id, source_type="question", retired=False).exists()
    with django_capture_on_commit_callbacks(execute=True):
        author.patch(f"{API}/questions/{content.draft_question.id}/", {"status": "published"}, format="json")
    assert all_deck_total() == before + 1
    with django_capture_on_commit_callbacks(execute=True):
        author.patch(f"{API}/questions/{content.draft_question.id}/", {"status": "draft"}, format="json")
    assert all_deck_total() == before
    assert Card.objects.get(source_id=content.draft_question.id, source_type="question").retired


@pytest.mark.parametrize("role", READERS)
def test_glossary_hides_draft_terms(content, client_for, role):
    client = client_for(role)
    assert slugs(client.get(f"{API}/glossary/").json()["results"]) == {"kv-cache"}
    assert client.get(f"{API}/glossary/", {"q": "quokka"}).json()["results"] == []
    assert client.get(f"{API}/glossary/draft-term/").status_code == 404
    assert client.get(f"{API}/glossary/kv-cache/").json()["related"] == []


@pytest.mark.parametrize("role", READERS)
def test_catalog_diagnosis_and_numbers_hide_drafts(content, client_for, role):
    client = client_for(role)
    assert slugs(client.get(f"{API}/simulators/models/").json()["results"]) == {"tiny-gqa"}
    assert slugs(client.get(f"{API}/simulators/gpus/").json()["results"]) == {"tiny-gpu"}
    assert client.get(f"{API}/simulators/models/draft-model/").status_code == 404
    assert client.get(f"{API}/simulators/gpus/draft-gpu/").status_code == 404
    kv = client.post(f"{API}/simulators/kv-cache/", {"model": "draft-model", "context_tokens": 1024}, format="json")
    assert kv.status_code == 400 and "model" in kv.json()["fields"]
    assert client.get(f"{API}/diagnosis/").json()["results"] == []
    assert client.get(f"{API}/numbers/").json()["results"] == []


def test_unpublishing_hides_an_item_again(content, client_for):
    author, learner = client_for("author"), client_for("learner")
    assert author.patch(f"{API}/chapters/ch-two/", {"status": "draft"}, format="json").status_code == 200
    assert learner.get(f"{API}/chapters/ch-two/").status_code == 404
    assert learner.get(f"{API}/chapters/ch-one/").json()["next"] is None


@pytest.fixture
def draft_part(content):
    """A published chapter in a draft part, with a published question and term that belong to it alone."""
    from apps.courses.models import Chapter, Part
    from apps.glossary.models import Term
    from apps.quiz.models import Question

    part = Part.objects.create(slug="p-draft", title="Hidden part", order=2, status="draft")
    chapter = Chapter.objects.create(slug="ch-hidden", part=part, order=1, title="Hidden chapter", summary="Hidden.",
                                     body="## Hidden")
    question = Question.objects.create(slug="q-hidden", kind="single_choice", level="core", prompt="Platypus?",
                                       answer="Platypus.", key={"options": CHOICE})
    question.chapters.set([chapter])
    question.topics.set([content.topic])
    term = Term.objects.create(slug="platypus-term", term="Platypus cache", definition="Platypus.")
    term.chapters.set([chapter])
    return question


@pytest.mark.parametrize("role", READERS)
def test_a_published_question_in_a_draft_part_is_hidden_everywhere(content, draft_part, client_for, role):
    from apps.flashcards.content import sync_all_cards

    sync_all_cards()
    client = client_for(role)
    assert [q["slug"] for q in client.get(f"{API}/questions/").json()["results"]] == ["q-pub"]
    assert client.get(f"{API}/questions/{draft_part.id}/").status_code == 404
    assert client.get(f"{API}/topics/").json()["results"] == [{"slug": "memory", "title": "Memory", "question_count": 1}]
    assert client.get(f"{API}/search/", {"q": "platypus"}).json()["results"] == []
    assert slugs(client.get(f"{API}/glossary/").json()["results"]) == {"kv-cache"}
    by_chapter = client.post(f"{API}/practice/sessions/", {"chapter": "ch-hidden"}, format="json")
    assert by_chapter.status_code == 400 and "chapter" in str(by_chapter.json()["fields"])
    session = client.post(f"{API}/practice/sessions/", {"size": 50}, format="json").json()
    assert [q["slug"] for q in session["questions"]] == ["q-pub"]
    if role == "learner":
        assert client.post(f"{API}/flashcards/decks/all/add/").json()["added"] == 2  # q-pub's and kv-cache's
        assert client.get(f"{API}/flashcards/cards/", {"q": "platypus"}).json()["count"] == 0


def test_authors_still_see_a_draft_parts_question(content, draft_part, client_for):
    assert client_for("author").get(f"{API}/questions/{draft_part.id}/").status_code == 200


def test_publishing_the_part_brings_its_cards_back(content, draft_part, client_for, django_capture_on_commit_callbacks):
    """The admin's publish action saves the part; the cards of what its chapters hold follow it both ways."""
    from apps.flashcards.content import sync_all_cards

    sync_all_cards()
    learner = client_for("learner")
    part = draft_part.chapters.get().part
    with django_capture_on_commit_callbacks(execute=True):
        part.status = "published"
        part.save()
    assert learner.post(f"{API}/flashcards/decks/all/add/").json()["added"] == 4  # with q-hidden's and the term's
    assert learner.get(f"{API}/flashcards/cards/", {"q": "platypus"}).json()["count"] == 2
    with django_capture_on_commit_callbacks(execute=True):
        part.status = "draft"
        part.save()
    rows = learner.get(f"{API}/flashcards/cards/", {"q": "platypus"}).json()["results"]
    assert [row["retired"] for row in rows] == [True, True]
    assert "Platypus" not in str(learner.get(f"{API}/flashcards/due/").json())
