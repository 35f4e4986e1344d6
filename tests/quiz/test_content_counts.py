"""The real fixtures meet the product's minimums (these fail while content is still being written)."""

import re

import pytest
from django.db.models import Count

from apps.courses.models import Chapter
from apps.quiz import services
from apps.quiz.models import DiagnosisScenario, IncidentCause, Kind, NumberToMemorize, Question

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
DERIVATION = re.compile(r"\d.*[×/=÷·*]|[×/=÷·*].*\d", re.S)


def test_at_least_63_vllm_questions(real_content):
    assert Question.objects.filter(topics__slug="vllm").distinct().count() >= 63


def test_20_core_topics_with_staff_level_answers(real_content):
    staff = Question.objects.filter(level="staff")
    assert staff.count() >= 20
    assert staff.values("topics__slug").distinct().count() >= 20


def test_every_chapter_has_3_questions_covering_core_mid_senior(real_content):
    short = []
    for chapter in Chapter.objects.annotate(n=Count("questions")):
        levels = set(chapter.questions.values_list("level", flat=True))
        if chapter.n < 3 or not {"core", "mid", "senior"} <= levels:
            short.append(f"{chapter.slug}: {chapter.n} questions, levels {sorted(levels)}")
    assert short == []


def test_numbers_diagnosis_and_numeric_minimums(real_content):
    assert NumberToMemorize.objects.count() >= 40
    assert DiagnosisScenario.objects.filter(game="diagnosis").count() >= 15
    incidents = DiagnosisScenario.objects.filter(game="k8s-incident")
    assert incidents.count() >= 8
    # Every cause of the incident game has a scenario; every scenario offers at least four pieces of evidence.
    assert set(incidents.values_list("answer", flat=True)) == set(IncidentCause.values)
    assert all(len(s.evidence) >= 4 and s.sources for s in DiagnosisScenario.objects.all())
    assert Question.objects.filter(kind=Kind.NUMERIC).count() >= 30


def test_every_numeric_answer_states_a_derivation(real_content):
    missing = [q.slug for q in Question.objects.filter(kind=Kind.NUMERIC) if not DERIVATION.search(q.answer)]
    assert missing == []


def test_drag_and_drop_checks(real_content):
    checks = Question.objects.filter(topics__slug="drag-and-drop").distinct()
    assert checks.count() >= 5
    assert set(checks.values_list("kind", flat=True)) <= {Kind.ORDERING, Kind.CATEGORIZE, Kind.MATCHING}


def test_every_question_has_a_chapter_and_renders_public_choices(real_content):
    assert real_content["questions"] == Question.objects.count()
    assert not Question.objects.filter(chapters__isnull=True).exists()
    for question in Question.objects.all():
        services.public_choices(question)
