"""Questions carry an optional `sources:` list: loaded, validated (non-empty strings) and exported back."""

import pytest

from apps.quiz.export import question_row
from apps.quiz.models import Question
from tests.quiz.test_loader import QUESTIONS, make_root, run

pytestmark = pytest.mark.django_db

SOURCED = QUESTIONS.replace(
    "  glossary: []\n",
    "  glossary: []\n  sources:\n  - 'vLLM v0.33.0, vllm/config/scheduler.py: SchedulerConfig'\n",
)


def test_sources_are_loaded_and_exported_after_the_glossary(tmp_path, chapters):
    ctx = run(make_root(tmp_path, SOURCED), chapters)
    assert ctx.errors == []
    question = Question.objects.get(slug="kv-bytes")
    assert question.sources == ["vLLM v0.33.0, vllm/config/scheduler.py: SchedulerConfig"]
    keys = list(question_row(question))
    assert keys.index("sources") == keys.index("glossary") + 1
    assert "sources" not in question_row(Question.objects.get(slug="pick-one"))


@pytest.mark.parametrize("bad", ["  sources: one string\n", "  sources:\n  - ''\n", "  sources:\n  - 7\n"])
def test_sources_must_be_non_empty_strings(tmp_path, chapters, bad):
    ctx = run(make_root(tmp_path, QUESTIONS.replace("  glossary: []\n", "  glossary: []\n" + bad)), chapters)
    assert any("question 'kv-bytes': sources: must be a list of non-empty strings" in error.message for error in ctx.errors)
