"""load_content manages only what the fixture files own, retires reversibly, follows declared renames, and
deleting content through the API archives it so learners' answers and reviews stay."""

import textwrap
from datetime import UTC, datetime

import pytest
from django.core.management import call_command

from apps.core import content
from apps.core.content import ContentInvalid, load_all
from apps.courses.models import Chapter
from apps.flashcards.models import Card, ReviewLog, UserCard
from apps.glossary.models import Term
from apps.quiz.models import PracticeAnswer, PracticeSession, Question

pytestmark = pytest.mark.django_db

STEPS = [step for step in content.STEPS if not step.name.startswith("apps.simulators.")]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def question(slug: str, extra: str = "") -> str:
    return textwrap.dedent(f"""\
        - slug: {slug}
          kind: single_choice
          level: core
          chapters: [basics-one]
          prompt: Which limits decode ({slug})?
          answer: Bandwidth.
          options:
          - text: HBM bandwidth
            correct: true
          - text: FLOPs
            correct: false
        """) + extra


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A tiny content tree (parts, one chapter, one term, questions); ``write(questions)`` rewrites the questions."""
    monkeypatch.setattr(content, "STEPS", STEPS)
    root = tmp_path / "fixtures"
    (root / "chapters" / "basics").mkdir(parents=True)
    (root / "glossary").mkdir()
    (root / "questions").mkdir()
    (root / "parts.yaml").write_text("- slug: basics\n  title: Basics\n  order: 1\n")
    (root / "chapters" / "basics" / "01-basics-one.md").write_text(
        "---\nslug: basics-one\ntitle: One\npart: basics\norder: 1\nsummary: About one.\n---\n## One\n\nText.\n")
    (root / "glossary" / "K.yaml").write_text(
        "- slug: kv-cache\n  term: KV cache\n  definition: Stored keys and values.\n  chapters: [basics-one]\n")

    def write(*questions: str) -> None:
        (root / "questions" / "q.yaml").write_text("".join(questions))

    write(question("q-one"), question("q-two"))
    load_all(root)
    return root, write


def learner_with_card(make_user, slug: str, *, suspended: bool = False) -> UserCard:
    card = Card.objects.get(source_type="question", source_id=Question.objects.get(slug=slug).pk)
    return UserCard.objects.create(user=make_user(), card=card, due=NOW, added_at=NOW, suspended=suspended)


def test_items_authored_in_the_api_or_admin_are_left_alone(tree):
    root, _ = tree
    api_question = Question.objects.create(slug="api-made", kind="single_choice", level="core", prompt="P?",
                                           answer="A.", key=Question.objects.get(slug="q-one").key)
    api_term = Term.objects.create(slug="admin-made", term="Admin term", definition="D.")
    load_all(root)
    api_question.refresh_from_db()
    api_term.refresh_from_db()
    assert (api_question.status, api_term.status) == ("published", "published")


def test_removed_question_comes_back_with_learners_cards_unsuspended(tree, make_user):
    root, write = tree
    active = learner_with_card(make_user, "q-two")
    own_choice = learner_with_card(make_user, "q-two", suspended=True)
    write(question("q-one"))
    load_all(root)
    assert Question.objects.get(slug="q-two").status == "draft"
    active.refresh_from_db()
    assert active.suspended and active.card.retired
    write(question("q-one"), question("q-two"))
    load_all(root)
    active.refresh_from_db()
    own_choice.refresh_from_db()
    assert Question.objects.get(slug="q-two").status == "published"
    assert not active.card.retired
    assert active.suspended is False  # it was active before the question left
    assert own_choice.suspended is True  # the learner had suspended it themselves


def test_a_declared_rename_keeps_the_card_and_review_history(tree, make_user):
    root, write = tree
    user_card = learner_with_card(make_user, "q-two")
    ReviewLog.objects.create(review_id="00000000-0000-0000-0000-000000000001", user=user_card.user,
                             user_card=user_card, rating=3, reviewed_at=NOW, state_before=0, state_after=1,
                             before={}, after={})
    pk = Question.objects.get(slug="q-two").pk
    write(question("q-one"), question("q-renamed", "  renamed_from: q-two\n"))
    load_all(root)
    load_all(root)  # idempotent: the old slug is gone, renamed_from is then a no-op
    renamed = Question.objects.get(slug="q-renamed")
    assert renamed.pk == pk and renamed.status == "published"
    assert not Question.objects.filter(slug="q-two").exists()
    user_card.refresh_from_db()
    assert not user_card.suspended and not user_card.card.retired
    assert user_card.reviews.count() == 1


def test_renamed_from_a_slug_still_in_the_files_is_an_error(tree):
    root, write = tree
    write(question("q-one"), question("q-two"), question("q-three", "  renamed_from: q-two\n"))
    with pytest.raises(ContentInvalid, match="still in the files"):
        load_all(root)


def test_deleting_a_question_through_the_api_keeps_learners_answers(tree, author_client, make_user):
    q = Question.objects.get(slug="q-one")
    session = PracticeSession.objects.create(user=make_user(), question_ids=[q.pk])
    PracticeAnswer.objects.create(session=session, question=q, score=1, correct=True)
    user_card = learner_with_card(make_user, "q-one")
    assert author_client.delete(f"/api/v1/questions/{q.pk}/").status_code == 204
    q.refresh_from_db()
    assert q.status == "archived"
    assert PracticeAnswer.objects.filter(question=q).count() == 1
    assert UserCard.objects.filter(pk=user_card.pk).exists()
    assert author_client.get(f"/api/v1/questions/{q.pk}/").status_code == 404


def test_deleting_a_chapter_or_term_through_the_api_archives_it(tree, author_client):
    assert author_client.delete("/api/v1/glossary/kv-cache/").status_code == 204
    assert Term.objects.get(slug="kv-cache").status == "archived"
    assert author_client.delete("/api/v1/chapters/basics-one/").status_code == 204
    assert Chapter.objects.get(slug="basics-one").status == "archived"


def test_if_changed_loads_only_when_the_files_changed(tree, capsys):
    root, write = tree
    edited = Question.objects.get(slug="q-one")
    edited.prompt = "Edited in the admin\n"
    edited.save()
    call_command("load_content", root=str(root), if_changed=True)
    edited.refresh_from_db()
    assert edited.prompt == "Edited in the admin\n"  # a restart does not rewrite authored content
    assert "unchanged" in capsys.readouterr().out
    write(question("q-one"), question("q-two"), question("q-new"))
    call_command("load_content", root=str(root), if_changed=True)
    assert Question.objects.filter(slug="q-new").exists()
