"""What every question kind is: one object that validates its answer key, shows what a learner may see, grades an
answer, states the right answer in words, gives a card its faces for export, and maps the admin's line fields.

A kind knows nothing of Django models: ``apps.quiz.models.Kind`` (the choices of ``Question.kind``) is built from
the registry, so this package sits below the models and a new kind is one module here plus its fixtures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


class KeyError_(ValueError):
    """An answer key that does not fit its kind; ``field`` names the offending part."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


class AnswerError(ValueError):
    """A malformed learner answer; ``field`` names the offending part."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


class LineError(ValueError):
    """A line of the admin's plain-text key fields that does not parse; ``field`` names the form field."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


@dataclass(frozen=True)
class Grade:
    correct: bool
    score: float
    feedback: dict


class QuestionKind:
    """The default is an open question: no key, self-rated, nothing to show but the prompt."""

    slug = ""
    label = ""
    order = 0  # position among the choices of Question.kind
    auto_checked = False  # graded on the server (else self-rated)
    typed_answer = False  # a flashcard of this kind can be answered by typing (checked like practice)
    line_fields: tuple[str, ...] = ()  # the admin form's plain-text fields for the key, first one shows key errors

    @property
    def name(self) -> str:
        return self.slug.upper()

    def validate(self, key: dict) -> dict:
        """The normalized key, or KeyError_ naming the part; ``key`` is known to be a dict."""
        return {}

    def public(self, key: dict, shuffle_seed: int) -> dict:
        """What a learner may see before answering: choices and items, never which is right."""
        return {}

    def grade(self, key: dict, answer: dict, shuffle_seed: int | None) -> Grade:
        raise AnswerError("kind", "open questions are self-rated, not checked")

    def explanation(self, key: dict) -> str:
        """A plain-text statement of the right answer, derived from the key."""
        return ""

    def card_front(self, key: dict) -> str:
        """Markdown shown under the prompt on an exported card (Anki, CSV), so the card can be answered there:
        the options, items, bins or pairs the question offers, in the key's order."""
        return ""

    def key_from_lines(self, data: dict) -> dict:
        """The raw key (before validate) from the admin's line fields."""
        return {}

    def lines_from_key(self, key: dict) -> dict:
        """Initial values of the admin's line fields for a stored key."""
        return {}

    def line_field_for(self, key_field: str) -> str:
        """The admin form field that shows a validate() error about ``key_field``."""
        return self.line_fields[0] if self.line_fields else "key"


def strings(value, field: str, minimum: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise KeyError_(field, f"{field} must be a list of non-empty strings")
    if len(value) < minimum:
        raise KeyError_(field, f"{field} needs at least {minimum} entries")
    if len(set(value)) != len(value):
        raise KeyError_(field, f"{field} has duplicate entries")
    return value


def require_list(answer: dict, field: str) -> list:
    value = answer.get(field)
    if not isinstance(value, list):
        raise AnswerError(field, f"'{field}' must be a list")
    return value


def lines(text: str) -> list[str]:
    return [line.rstrip() for line in (text or "").splitlines() if line.strip()]


def finite(number: int | float) -> bool:
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False


def bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items)
