"""The rules of an investigation, shared by every game (the diagnosis game, the Kubernetes incident game): what a
scenario must hold, how many pieces of evidence a learner may ask for, and the score. Plain Python, no Django.

Score: naming the right cause after asking for k pieces of evidence scores 1 − 0.1·k (1.0 from the symptom alone,
0.5 after all five); a wrong cause scores 0."""

from __future__ import annotations

import re

MAX_QUESTIONS = 5
PENALTY_PER_QUESTION = 0.1
MAX_EVIDENCE = 12
MAX_EVIDENCE_TEXT = 4000
KEY = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def score(*, correct: bool, asked: int) -> float:
    if not 0 <= asked <= MAX_QUESTIONS:
        raise ValueError(f"asked must be between 0 and {MAX_QUESTIONS}")
    return round(1.0 - PENALTY_PER_QUESTION * asked, 4) if correct else 0.0


def scenario_errors(*, causes, kinds, answer: str, evidence, telling, sources) -> dict[str, list[str]]:
    """Problems with a scenario's investigation fields, by field name (empty when it is sound): the answer is one
    of its game's causes; evidence is a list of {key, kind, label, text} with unique lowercase-hyphenated keys;
    telling names at least one of those keys; sources is a non-empty list of non-empty strings."""
    errors: dict[str, list[str]] = {}
    if answer not in causes:
        errors["answer"] = [f"must be one of {', '.join(causes)}"]
    keys: list[str] = []
    if not isinstance(evidence, list) or not 1 <= len(evidence) <= MAX_EVIDENCE:
        errors["evidence"] = [f"must be a list of 1 to {MAX_EVIDENCE} items"]
    else:
        for index, item in enumerate(evidence):
            problem = _item_error(item, kinds)
            if problem:
                errors.setdefault("evidence", []).append(f"item {index + 1}: {problem}")
            else:
                keys.append(item["key"])
        if len(set(keys)) != len(keys):
            errors.setdefault("evidence", []).append("keys must be unique")
    if not isinstance(telling, list) or not telling or not all(isinstance(key, str) for key in telling):
        errors["telling"] = ["must list at least one evidence key"]
    elif "evidence" not in errors:
        unknown = [key for key in telling if key not in keys]
        if unknown:
            errors["telling"] = [f"unknown evidence key {', '.join(map(repr, unknown))}"]
    if not isinstance(sources, list) or not sources or not all(isinstance(s, str) and s.strip() for s in sources):
        errors["sources"] = ["must be a list of at least one non-empty string"]
    return errors


def _item_error(item, kinds) -> str | None:
    if not isinstance(item, dict) or set(item) != {"key", "kind", "label", "text"}:
        return "needs exactly key, kind, label and text"
    if not all(isinstance(item[name], str) and item[name].strip() for name in ("key", "kind", "label", "text")):
        return "key, kind, label and text must be non-empty strings"
    if not KEY.match(item["key"]):
        return f"key '{item['key']}' is not lowercase-hyphenated"
    if item["kind"] not in kinds:
        return f"kind must be one of {', '.join(kinds)}"
    if len(item["text"]) > MAX_EVIDENCE_TEXT:
        return f"text longer than {MAX_EVIDENCE_TEXT} characters"
    return None
