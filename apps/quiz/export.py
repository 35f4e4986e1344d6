"""Questions, numbers to memorize and diagnosis scenarios back to fixtures/ (questions/<file>.yaml, numbers.yaml,
diagnosis.yaml, k8s-incidents.yaml). Questions go back to the file they were loaded from; the answer key becomes the kind's fields."""

from collections import defaultdict
from pathlib import Path

from apps.core.content_export import dump_yaml, target_file, with_status, write_text
from apps.quiz.content import GAME_FILES
from apps.quiz.models import DiagnosisScenario, NumberToMemorize, Question

DEFAULT_FILE = "authored.yaml"


def question_row(question: Question) -> dict:
    row = {
        "slug": question.slug,
        "kind": question.kind,
        "level": question.level,
        "topics": sorted(topic.slug for topic in question.topics.all()),
        "chapters": sorted(chapter.slug for chapter in question.chapters.all()),
        "glossary": sorted(term.slug for term in question.glossary_terms.all()),
        **({"sources": question.sources} if question.sources else {}),
        "prompt": question.prompt,
        "answer": question.answer,
        **(question.key or {}),
    }
    return with_status(row, question.status)


def export_questions(root: Path, written: list[Path]) -> None:
    by_file: dict[str, list[dict]] = defaultdict(list)
    for question in Question.objects.live().prefetch_related("topics", "chapters", "glossary_terms").order_by("id"):
        by_file[target_file(question.source_file, "questions", DEFAULT_FILE)].append(question_row(question))
    for name, rows in sorted(by_file.items()):
        write_text(root / name, dump_yaml(rows), written)


def _chapters(obj) -> list[str]:
    return sorted(chapter.slug for chapter in obj.chapters.all())


def export_numbers(root: Path, written: list[Path]) -> None:
    rows = [
        with_status({
            "slug": number.slug, "label": number.label, "value": number.value, "unit": number.unit,
            "source": number.source, "derivation": number.derivation, "chapters": _chapters(number),
        }, number.status)
        for number in NumberToMemorize.objects.live().prefetch_related("chapters").order_by("id")
    ]
    write_text(root / "numbers.yaml", dump_yaml(rows), written)


def scenario_row(scenario: DiagnosisScenario) -> dict:
    return with_status({
        "slug": scenario.slug, "symptom": scenario.symptom, "details": scenario.details,
        "evidence": scenario.evidence, "answer": scenario.answer, "telling": scenario.telling,
        "reasoning": scenario.reasoning, "sources": scenario.sources, "chapters": _chapters(scenario),
    }, scenario.status)


def export_diagnosis(root: Path, written: list[Path]) -> None:
    """Each investigation game's scenarios back to its own file (GAME_FILES)."""
    scenarios = DiagnosisScenario.objects.live().prefetch_related("chapters").order_by("id")
    for game, name in GAME_FILES.items():
        write_text(root / name, dump_yaml([scenario_row(s) for s in scenarios if s.game == game]), written)
