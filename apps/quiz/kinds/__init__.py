"""The registry of question kinds: every module of this package declares ``KINDS``, found here by name, so adding
a kind is adding a module. Everything that depends on a question's kind asks ``kind_of(slug)``; the functions
below are the few calls the rest of the code makes."""

from __future__ import annotations

import importlib
import pkgutil

from apps.quiz.kinds.base import AnswerError, Grade, KeyError_, LineError, QuestionKind


def _discover() -> dict[str, QuestionKind]:
    found: list[QuestionKind] = []
    for module in pkgutil.iter_modules(__path__):
        if module.name != "base":
            found += importlib.import_module(f"{__name__}.{module.name}").KINDS
    slugs = [kind.slug for kind in found]
    if len(set(slugs)) != len(slugs) or not all(slugs):
        raise RuntimeError(f"question kinds need distinct, non-empty slugs: {slugs}")
    return {kind.slug: kind for kind in sorted(found, key=lambda kind: (kind.order, kind.slug))}


REGISTRY = _discover()


def kind_of(slug: str) -> QuestionKind:
    """The kind object for a slug; KeyError_ on ``kind`` for one that does not exist."""
    try:
        return REGISTRY[slug]
    except KeyError:
        raise KeyError_("kind", f"unknown kind '{slug}'") from None


def validate_key(kind: str, key: dict) -> dict:
    """The normalized key or KeyError_ naming the field."""
    if not isinstance(key, dict):
        raise KeyError_("key", "the answer key must be a mapping")
    return kind_of(kind).validate(key)


def public_key(kind: str, key: dict, shuffle_seed: int) -> dict:
    return kind_of(kind).public(key, shuffle_seed)


def grade(kind: str, key: dict, answer, shuffle_seed: int | None = None) -> Grade:
    """Grades a learner's answer against a validated key; raises AnswerError for malformed answers. With
    ``shuffle_seed``, choice indexes refer to the shuffled display order public_key() produced with that seed."""
    if not isinstance(answer, dict):
        raise AnswerError("answer", "the answer must be an object")
    return kind_of(kind).grade(key, answer, shuffle_seed)


__all__ = ["REGISTRY", "AnswerError", "Grade", "KeyError_", "LineError", "QuestionKind", "grade", "kind_of",
           "public_key", "validate_key"]
