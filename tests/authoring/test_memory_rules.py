"""Author edits keep learners' memory: rewording keeps scheduling, a new key flags the card, deleting suspends it,
and a question that leaves the content files is unpublished, not deleted (its practice answers stay)."""

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.core.content import load_all
from apps.flashcards.content import sync_all_cards
from apps.flashcards.models import Card, CardState, ReviewLog, UserCard
from apps.quiz.models import PracticeAnswer, PracticeSession, Question

from .admin_helpers import CHOICE_LINES, author, author_web, chapter, question_data  # noqa: F401

pytestmark = pytest.mark.django_db
DUE = datetime(2025, 1, 2, 3, 4, tzinfo=UTC)


@pytest.fixture
def reviewed(author_web, chapter, make_user):  # noqa: F811
    """A published question whose card one learner has reviewed: state Review, stability 5.5, difficulty 6.25."""
    author_web.post("/admin/quiz/question/add/", question_data(chapter, status="published"))
    question = Question.objects.get()
    sync_all_cards()
    card = Card.objects.get(source_type="question", source_id=question.pk)
    learner = make_user("rememberer")
    user_card = UserCard.objects.create(user=learner, card=card, state=CardState.REVIEW, stability=5.5,
                                        difficulty=6.25, due=DUE, reps=3, added_at=DUE - timedelta(days=9),
                                        last_review=DUE - timedelta(days=4))
    ReviewLog.objects.create(review_id=uuid.uuid4(), user=learner, user_card=user_card, rating=3,
                             reviewed_at=DUE - timedelta(days=4), state_before=1, state_after=2, before={}, after={})
    return question, card, user_card


def scheduling(user_card):
    user_card.refresh_from_db()
    return (user_card.state, user_card.stability, user_card.difficulty, user_card.due, user_card.reps)


def test_rewording_keeps_scheduling_and_updates_the_card_text(author_web, chapter, reviewed,  # noqa: F811
                                                               django_capture_on_commit_callbacks):
    question, card, user_card = reviewed
    before = scheduling(user_card)
    with django_capture_on_commit_callbacks(execute=True):
        response = author_web.post(f"/admin/quiz/question/{question.pk}/change/",
                                   question_data(chapter, status="published", prompt="What limits decode at batch 1?"))
    assert response.status_code == 302
    card.refresh_from_db()
    assert card.front == "What limits decode at batch 1?" and card.source_version == 1
    assert scheduling(user_card) == before == (CardState.REVIEW, 5.5, 6.25, DUE, 3)
    assert user_card.source_changed is False and user_card.suspended is False


def test_new_answer_key_flags_the_card_and_the_due_queue_says_so(author_web, chapter, reviewed,  # noqa: F811
                                                                 django_capture_on_commit_callbacks):
    question, card, user_card = reviewed
    before = scheduling(user_card)
    new_lines = CHOICE_LINES.replace("[x] HBM", "[ ] HBM").replace("[ ] PCIe", "[x] PCIe")
    with django_capture_on_commit_callbacks(execute=True):
        author_web.post(f"/admin/quiz/question/{question.pk}/change/",
                        question_data(chapter, status="published", options_text=new_lines))
    question.refresh_from_db()
    card.refresh_from_db()
    assert question.key_version == 2 and card.source_version == 2
    assert scheduling(user_card) == before
    assert user_card.source_changed is True
    api = APIClient()
    api.force_authenticate(user_card.user)
    due = api.get("/api/v1/flashcards/due/").json()
    assert [(c["card_id"], c["source_changed"]) for c in due["cards"]] == [(card.pk, True)]


def test_deleting_a_question_suspends_cards_and_keeps_reviews(author_web, reviewed,  # noqa: F811
                                                              django_capture_on_commit_callbacks):
    question, card, user_card = reviewed
    with django_capture_on_commit_callbacks(execute=True):
        response = author_web.post(f"/admin/quiz/question/{question.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not Question.objects.exists()
    card.refresh_from_db()
    user_card.refresh_from_db()
    assert card.retired and user_card.suspended
    assert (user_card.stability, user_card.reps) == (5.5, 3)
    assert ReviewLog.objects.filter(user_card=user_card).count() == 1


def test_unpublishing_retires_the_card_without_losing_memory(author_web, reviewed,  # noqa: F811
                                                             django_capture_on_commit_callbacks):
    question, card, user_card = reviewed
    with django_capture_on_commit_callbacks(execute=True):
        author_web.post("/admin/quiz/question/", {"action": "unpublish", "_selected_action": [question.pk]})
    card.refresh_from_db()
    assert card.retired and scheduling(user_card)[:3] == (CardState.REVIEW, 5.5, 6.25)
    assert user_card.suspended


QUESTION = """- slug: {slug}
  kind: open
  level: core
  topics: [decode]
  chapters: [decode-basics]
  glossary: []
  prompt: Why is decode slow?
  answer: It reads all weights per token.
"""


def write_tree(root: Path, slugs: list[str]) -> Path:
    (root / "chapters" / "serving").mkdir(parents=True, exist_ok=True)
    (root / "parts.yaml").write_text("- slug: serving\n  title: Serving\n  order: 1\n")
    (root / "chapters" / "serving" / "01-decode-basics.md").write_text(
        "---\nslug: decode-basics\ntitle: Decode basics\npart: serving\norder: 1\nsummary: s.\n---\n## Decode\n")
    (root / "questions").mkdir(exist_ok=True)
    (root / "questions" / "q.yaml").write_text("".join(QUESTION.format(slug=slug) for slug in slugs) or "[]\n")
    catalog = Path(__file__).resolve().parents[2] / "fixtures" / "catalog"
    (root / "catalog").mkdir(exist_ok=True)
    for name in ("models.yaml", "gpus.yaml"):
        (root / "catalog" / name).write_text((catalog / name).read_text())
    return root


def test_question_removed_from_the_files_is_unpublished_and_keeps_answers(tmp_path, make_user):
    root = write_tree(tmp_path / "fixtures", ["stays", "leaves"])
    load_all(root)
    leaving = Question.objects.get(slug="leaves")
    session = PracticeSession.objects.create(user=make_user(), question_ids=[leaving.pk])
    PracticeAnswer.objects.create(session=session, question=leaving, score=1.0, correct=True, answered_at=timezone.now())

    write_tree(root, ["stays"])
    load_all(root)
    leaving.refresh_from_db()
    assert leaving.status == "draft"
    assert PracticeAnswer.objects.filter(question=leaving).count() == 1
    assert Card.objects.get(source_type="question", source_id=leaving.pk).retired

    write_tree(root, ["stays", "leaves"])  # back in the files: published again, same row
    load_all(root)
    leaving.refresh_from_db()
    assert leaving.status == "published"
    assert not Card.objects.get(source_type="question", source_id=leaving.pk).retired
