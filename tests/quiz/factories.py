"""Small, hand-written quiz content for tests: a part, chapters, and one question per kind."""

from apps.courses.models import Chapter, Part
from apps.quiz.kinds import validate_key
from apps.quiz.models import Question, Topic

KEYS = {
    "single_choice": {"options": [
        {"text": "HBM bandwidth", "correct": True},
        {"text": "Tensor core FLOPs", "correct": False},
        {"text": "PCIe latency", "correct": False},
    ]},
    "multiple_choice": {"options": [
        {"text": "GQA", "correct": True},
        {"text": "FP8 KV cache", "correct": True},
        {"text": "Bigger batch", "correct": False},
        {"text": "Longer context", "correct": False},
    ]},
    "numeric": {"numeric": {"value": 16, "unit": "GiB", "tolerance": 0.01, "tolerance_mode": "relative"}},
    "ordering": {"items": ["Tokenize", "Prefill", "Decode", "Detokenize"]},
    "categorize": {"bins": ["Compute-bound", "Memory-bound"], "items": [
        {"text": "Prefill of a 4k prompt", "bin": "Compute-bound"},
        {"text": "Decode at batch 1", "bin": "Memory-bound"},
        {"text": "Large GEMM", "bin": "Compute-bound"},
        {"text": "KV cache read", "bin": "Memory-bound"},
    ]},
    "matching": {"pairs": [
        {"left": "KV cache full", "right": "Add blocks"},
        {"left": "Slow prefill", "right": "Chunk it"},
        {"left": "Idle GPUs", "right": "Batch more"},
    ]},
    "open": {},
}


def make_part(slug: str = "serving", order: int = 1) -> Part:
    return Part.objects.create(slug=slug, title=slug.title(), order=order)


def make_chapter(slug: str, part: Part | None = None, order: int = 1) -> Chapter:
    part = part or Part.objects.first() or make_part()
    return Chapter.objects.create(slug=slug, part=part, order=order, title=f"Chapter {slug}", summary="s", body="b")


def make_question(kind: str, *, slug: str | None = None, level: str = "core", topics=(), chapters=(), status="published",
                  key: dict | None = None, prompt: str = "Prompt text", answer: str = "Model answer text") -> Question:
    question = Question.objects.create(
        slug=slug or f"q-{kind.replace('_', '-')}-{Question.objects.count() + 1}", kind=kind, level=level, status=status,
        prompt=prompt, answer=answer, key=validate_key(kind, key if key is not None else KEYS[kind]),
    )
    question.topics.set([Topic.objects.get_or_create(slug=name)[0] for name in topics])
    question.chapters.set(list(chapters))
    return question
