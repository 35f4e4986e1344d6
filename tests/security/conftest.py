"""Personas (an owner and a stranger) and a tiny published curriculum for the security checks."""

from types import SimpleNamespace

import pytest

from tests.journeys.conftest import desktop, open_page  # noqa: F401 - watched browser pages for the browser checks


def signed_in(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    client.user = user
    return client


@pytest.fixture
def owner(make_user):
    return signed_in(make_user("owner"))


@pytest.fixture
def stranger(make_user):
    return signed_in(make_user("stranger"))


@pytest.fixture
def content(db):
    from apps.courses.models import Chapter, Part
    from apps.flashcards.content import sync_all_cards
    from apps.glossary.models import Term
    from apps.quiz.models import Question, Topic

    part = Part.objects.create(slug="sec-part", title="Security part", order=1)
    chapter = Chapter.objects.create(slug="sec-chapter", part=part, order=1, title="Chapter", summary="s", body="Body.")
    topic = Topic.objects.create(slug="sec-topic")
    question = Question.objects.create(slug="sec-q", kind="open", level="core", prompt="What is prefill?",
                                       answer="The prompt pass.")
    question.chapters.set([chapter])
    question.topics.set([topic])
    term = Term.objects.create(slug="sec-term", term="Prefill", definition="The prompt pass.", explanation="Text.")
    sync_all_cards()
    return SimpleNamespace(part=part, chapter=chapter, topic=topic, question=question, term=term,
                           deck="topic-sec-topic")
