"""The question, number and diagnosis loader steps on small hand-written fixtures."""

import textwrap
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.core.content import LoadContext
from apps.quiz.content import load_diagnosis, load_numbers, load_questions
from apps.quiz.models import DiagnosisScenario, NumberToMemorize, Question, Topic

pytestmark = pytest.mark.django_db

QUESTIONS = """\
- slug: kv-bytes
  kind: numeric
  level: core
  topics: [kv-cache]
  chapters: [kv-cache-sizing]
  glossary: []
  prompt: |
    How many bytes? Answer in B.
  numeric:
    value: 131072
    unit: "B"
    tolerance: 0.02
  answer: |
    2 × 32 × 8 × 128 × 2 = 131,072 B
- slug: pick-one
  kind: single_choice
  level: mid
  topics: [memory, kv-cache]
  chapters: [kv-cache-sizing, continuous-batching]
  prompt: Which?
  options:
    - text: "A"
      correct: true
    - text: "B"
  answer: A.
"""
NUMBERS = """\
- slug: h100-bw
  label: "H100 bandwidth"
  value: "3.35"
  unit: "TB/s"
  source: "datasheet"
  derivation: "5 stacks"
  chapters: [kv-cache-sizing]
"""
DIAGNOSIS = """\
- slug: empty-queue
  symptom: "TTFT high"
  evidence:
  - {key: queue, kind: metrics, label: "Queue time", text: "p99 0.01 s"}
  answer: compute
  telling: [queue]
  reasoning: "Prefill."
  sources: ["datasheet"]
  chapters: [continuous-batching]
"""


def make_root(tmp_path: Path, questions: str = QUESTIONS) -> Path:
    root = tmp_path / "fixtures"
    (root / "questions").mkdir(parents=True)
    (root / "questions" / "a.yaml").write_text(questions)
    (root / "numbers.yaml").write_text(NUMBERS)
    (root / "diagnosis.yaml").write_text(DIAGNOSIS)
    return root


def run(root: Path, chapters) -> LoadContext:
    ctx = LoadContext(root=root)
    for chapter in chapters.values():
        ctx.register("chapters", chapter.slug, chapter, root, 1)
    load_questions(ctx)
    load_numbers(ctx)
    load_diagnosis(ctx)
    return ctx


def test_loads_questions_numbers_diagnosis(tmp_path, chapters):
    ctx = run(make_root(tmp_path), chapters)
    assert ctx.errors == []
    assert (ctx.counts["questions"], ctx.counts["numbers"], ctx.counts["diagnosis"]) == (2, 1, 1)
    question = Question.objects.get(slug="kv-bytes")
    assert question.key == {"numeric": {"value": 131072, "unit": "B", "tolerance": 0.02, "tolerance_mode": "relative"}}
    assert question.key_version == 1
    assert list(Question.objects.get(slug="pick-one").chapters.values_list("slug", flat=True)) == ["kv-cache-sizing", "continuous-batching"]
    assert sorted(Topic.objects.values_list("slug", flat=True)) == ["kv-cache", "memory"]
    assert list(NumberToMemorize.objects.get().chapters.values_list("slug", flat=True)) == ["kv-cache-sizing"]
    assert DiagnosisScenario.objects.get().answer == "compute"


def test_second_load_writes_nothing(tmp_path, chapters):
    root = make_root(tmp_path)
    run(root, chapters)
    with CaptureQueriesContext(connection) as queries:
        ctx = run(root, chapters)
    assert ctx.errors == []
    writes = [q["sql"] for q in queries if q["sql"].split()[0].upper() in ("INSERT", "UPDATE", "DELETE")]
    assert writes == []


def test_changed_key_bumps_key_version_and_unchanged_text_does_not(tmp_path, chapters):
    root = make_root(tmp_path)
    run(root, chapters)
    (root / "questions" / "a.yaml").write_text(QUESTIONS.replace("value: 131072", "value: 65536").replace("Which?", "Which one?"))
    run(root, chapters)
    assert Question.objects.get(slug="kv-bytes").key_version == 2
    assert Question.objects.get(slug="pick-one").key_version == 1
    assert Question.objects.get(slug="pick-one").prompt == "Which one?\n"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("unit: \"B\"", "unit: \"furlongs\""), "question 'kv-bytes': numeric.unit: unknown unit 'furlongs'"),
        (("tolerance: 0.02", "tolerance: -1"), "question 'kv-bytes': numeric.tolerance:"),
        (("    - text: \"B\"\n", "    - text: \"B\"\n      correct: true\n"), "question 'pick-one': options: a single-choice question has exactly one correct option (found 2)"),
        (("chapters: [kv-cache-sizing]\n  glossary: []", "chapters: [no-such-chapter]\n  glossary: []"), "question 'kv-bytes': chapters: unknown chapter 'no-such-chapter'"),
        (("chapters: [kv-cache-sizing]\n  glossary: []", "chapters: []\n  glossary: []"), "question 'kv-bytes': chapters: a question links to at least one chapter"),
        (("glossary: []", "glossary: [no-term]"), "question 'kv-bytes': glossary: unknown term 'no-term'"),
        (("level: core", "level: guru"), "question 'kv-bytes': level: must be one of"),
        (("kind: numeric", "kind: essay"), "question 'kv-bytes': kind: must be one of"),
        (("topics: [kv-cache]", "topics: [KV Cache]"), "question 'kv-bytes': topics: 'KV Cache' is not a lowercase-hyphenated tag"),
    ],
)
def test_errors_name_file_line_question_and_field(tmp_path, chapters, change, message):
    ctx = run(make_root(tmp_path, QUESTIONS.replace(*change)), chapters)
    assert any(message in error.message for error in ctx.errors), [str(e) for e in ctx.errors]
    error = next(error for error in ctx.errors if message in error.message)
    assert error.path.endswith("questions/a.yaml") and error.line >= 1


def test_option_error_points_at_the_option_line(tmp_path, chapters):
    ctx = run(make_root(tmp_path, QUESTIONS.replace('    - text: "B"\n', '    - text: ""\n')), chapters)
    error = next(error for error in ctx.errors if "options.1.text" in error.message)
    assert error.line == QUESTIONS.splitlines().index('    - text: "B"') + 1


def test_bad_diagnosis_answer_and_unknown_chapter(tmp_path, chapters):
    root = make_root(tmp_path)
    (root / "diagnosis.yaml").write_text(DIAGNOSIS.replace("answer: compute", "answer: gpu"))
    (root / "numbers.yaml").write_text(NUMBERS.replace("[kv-cache-sizing]", "[nope]"))
    messages = [error.message for error in run(root, chapters).errors]
    assert any("scenario 'empty-queue': answer: must be one of compute, memory" in m for m in messages)
    assert any("unknown chapter 'nope'" in m for m in messages)


def test_removed_topic_is_deleted(tmp_path, chapters):
    root = make_root(tmp_path)
    run(root, chapters)
    (root / "questions" / "a.yaml").write_text(QUESTIONS.replace("topics: [memory, kv-cache]", "topics: [kv-cache]"))
    run(root, chapters)
    assert list(Topic.objects.values_list("slug", flat=True)) == ["kv-cache"]


def test_entry_without_chapters_field_is_an_error(tmp_path, chapters):
    text = textwrap.dedent("""\
        - slug: lonely
          kind: open
          level: core
          prompt: Why?
          answer: Because.
    """)
    ctx = run(make_root(tmp_path, text), chapters)
    assert [e.message for e in ctx.errors] == ["question 'lonely': chapters: a question links to at least one chapter"]
