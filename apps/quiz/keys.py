"""Answer keys per question kind: validation (loader, admin and API alike) and server-side grading."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from apps.quiz.models import Kind
from apps.quiz.units import UnitError, canonical_unit, convert, parse_quantity


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


def _strings(value, field: str, minimum: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise KeyError_(field, f"{field} must be a list of non-empty strings")
    if len(value) < minimum:
        raise KeyError_(field, f"{field} needs at least {minimum} entries")
    if len(set(value)) != len(value):
        raise KeyError_(field, f"{field} has duplicate entries")
    return value


def validate_key(kind: str, key: dict) -> dict:
    """Returns the normalized key or raises KeyError_ naming the field."""
    if not isinstance(key, dict):
        raise KeyError_("key", "the answer key must be a mapping")
    if kind == Kind.OPEN:
        return {}
    if kind in (Kind.SINGLE_CHOICE, Kind.MULTIPLE_CHOICE):
        options = key.get("options")
        if not isinstance(options, list) or len(options) < 2:
            raise KeyError_("options", "choice questions need at least two options")
        normalized = []
        for index, option in enumerate(options):
            if not isinstance(option, dict) or not isinstance(option.get("text"), str) or not option["text"].strip():
                raise KeyError_(f"options.{index}.text", "each option needs a text")
            if not isinstance(option.get("correct", False), bool):
                raise KeyError_(f"options.{index}.correct", "correct must be true or false")
            normalized.append({"text": option["text"], "correct": option.get("correct", False), **({"why": option["why"]} if option.get("why") else {})})
        if len({option["text"] for option in normalized}) != len(normalized):
            raise KeyError_("options", "two options have the same text")
        correct = sum(option["correct"] for option in normalized)
        if kind == Kind.SINGLE_CHOICE and correct != 1:
            raise KeyError_("options", f"a single-choice question has exactly one correct option (found {correct})")
        if kind == Kind.MULTIPLE_CHOICE and correct < 1:
            raise KeyError_("options", "a multiple-choice question has at least one correct option")
        return {"options": normalized}
    if kind == Kind.NUMERIC:
        spec = key.get("numeric")
        if not isinstance(spec, dict):
            raise KeyError_("numeric", "numeric questions need a numeric: {value, unit, tolerance} block")
        value = spec.get("value")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise KeyError_("numeric.value", "value must be a finite number")
        try:
            unit = canonical_unit(str(spec.get("unit", "")))
        except UnitError as exc:
            raise KeyError_("numeric.unit", str(exc))
        tolerance = spec.get("tolerance")
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance) or tolerance < 0:
            raise KeyError_("numeric.tolerance", "tolerance must be present and a non-negative number")
        mode = spec.get("tolerance_mode", "relative")
        if mode not in ("relative", "absolute"):
            raise KeyError_("numeric.tolerance_mode", "tolerance_mode is relative or absolute")
        if mode == "relative" and tolerance > 1:
            raise KeyError_("numeric.tolerance", "a relative tolerance is a fraction (0.05 = ±5 %)")
        return {"numeric": {"value": value, "unit": unit, "tolerance": tolerance, "tolerance_mode": mode}}
    if kind == Kind.ORDERING:
        return {"items": _strings(key.get("items"), "items", 3)}
    if kind == Kind.CATEGORIZE:
        bins = _strings(key.get("bins"), "bins", 2)
        items = key.get("items")
        if not isinstance(items, list) or len(items) < 2:
            raise KeyError_("items", "categorize questions need at least two items")
        normalized = []
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
                raise KeyError_(f"items.{index}.text", "each item needs a text")
            if item.get("bin") not in bins:
                raise KeyError_(f"items.{index}.bin", f"item '{item['text']}' is in bin '{item.get('bin')}', which is not one of the bins")
            normalized.append({"text": item["text"], "bin": item["bin"]})
        if len({item["text"] for item in normalized}) != len(normalized):
            raise KeyError_("items", "two items have the same text")
        return {"bins": bins, "items": normalized}
    if kind == Kind.MATCHING:
        pairs = key.get("pairs")
        if not isinstance(pairs, list) or len(pairs) < 2:
            raise KeyError_("pairs", "matching questions need at least two pairs")
        normalized = []
        for index, pair in enumerate(pairs):
            if not isinstance(pair, dict) or not all(isinstance(pair.get(side), str) and pair[side].strip() for side in ("left", "right")):
                raise KeyError_(f"pairs.{index}", "each pair needs a left and a right text")
            normalized.append({"left": pair["left"], "right": pair["right"]})
        for side in ("left", "right"):
            if len({pair[side] for pair in normalized}) != len(normalized):
                raise KeyError_("pairs", f"two pairs have the same {side} text")
        return {"pairs": normalized}
    raise KeyError_("kind", f"unknown kind '{kind}'")


def option_order(key: dict, shuffle_seed: int) -> list[int]:
    """The deterministic display order of a choice question's options (original indexes).

    Authors tend to write the right option first, so options are shown shuffled and learners answer with
    indexes into the shuffled list; grade() maps them back with the same seed.
    """
    order = list(range(len(key["options"])))
    random.Random(shuffle_seed).shuffle(order)
    return order


def public_key(kind: str, key: dict, shuffle_seed: int) -> dict:
    """What a learner may see before answering: choices and items, never which is right."""
    rng = random.Random(shuffle_seed)
    if kind in (Kind.SINGLE_CHOICE, Kind.MULTIPLE_CHOICE):
        return {"options": [key["options"][index]["text"] for index in option_order(key, shuffle_seed)]}
    if kind == Kind.NUMERIC:
        return {"unit": key["numeric"]["unit"]}
    if kind == Kind.ORDERING:
        items = list(key["items"])
        rng.shuffle(items)
        if items == key["items"]:
            items.reverse()
        return {"items": items}
    if kind == Kind.CATEGORIZE:
        items = [item["text"] for item in key["items"]]
        rng.shuffle(items)
        return {"bins": key["bins"], "items": items}
    if kind == Kind.MATCHING:
        rights = [pair["right"] for pair in key["pairs"]]
        rng.shuffle(rights)
        return {"left": [pair["left"] for pair in key["pairs"]], "right": rights}
    return {}


@dataclass(frozen=True)
class Grade:
    correct: bool
    score: float
    feedback: dict


def _finite(number: int | float) -> bool:
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False


def _require_list(answer: dict, field: str) -> list:
    value = answer.get(field)
    if not isinstance(value, list):
        raise AnswerError(field, f"'{field}' must be a list")
    return value


def grade(kind: str, key: dict, answer, shuffle_seed: int | None = None) -> Grade:
    """Grades a learner's answer against a validated key; raises AnswerError for malformed answers.

    With ``shuffle_seed``, choice indexes (in the answer and in the feedback) refer to the shuffled display order
    that public_key() produced with the same seed; without it, to the order in the key.
    """
    if not isinstance(answer, dict):
        raise AnswerError("answer", "the answer must be an object")
    if kind in (Kind.SINGLE_CHOICE, Kind.MULTIPLE_CHOICE):
        if shuffle_seed is not None:
            order = option_order(key, shuffle_seed)
            key = {**key, "options": [key["options"][index] for index in order]}
        texts = [option["text"] for option in key["options"]]
        chosen = _require_list(answer, "selected")
        if not all(isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(texts) for index in chosen):
            raise AnswerError("selected", f"selected must be option indexes between 0 and {len(texts) - 1}")
        chosen_set = set(chosen)
        if kind == Kind.SINGLE_CHOICE and len(chosen_set) != 1:
            raise AnswerError("selected", "choose exactly one option")
        right = {index for index, option in enumerate(key["options"]) if option["correct"]}
        if kind == Kind.SINGLE_CHOICE:
            score = 1.0 if chosen_set == right else 0.0
        else:
            # Share of options classified correctly (chosen when right, left out when wrong).
            score = sum((index in chosen_set) == (index in right) for index in range(len(texts))) / len(texts)
        return Grade(chosen_set == right, score, {"correct_options": sorted(right)})
    if kind == Kind.NUMERIC:
        spec = key["numeric"]
        raw = answer.get("value")
        unit = answer.get("unit")
        if isinstance(raw, str):
            try:
                raw, parsed_unit = parse_quantity(raw)
            except UnitError as exc:
                raise AnswerError("value", str(exc))
            unit = unit or parsed_unit
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not _finite(raw):
            raise AnswerError("value", "value must be a finite number")
        if unit is not None and not isinstance(unit, str):
            raise AnswerError("unit", "unit must be a string")
        try:
            given = convert(float(raw), unit, spec["unit"]) if unit else float(raw)
        except UnitError as exc:
            raise AnswerError("unit", str(exc))
        if not math.isfinite(given):
            raise AnswerError("value", "value is out of range")
        expected = spec["value"]
        error = abs(given - expected)
        allowed = spec["tolerance"] * abs(expected) if spec["tolerance_mode"] == "relative" else spec["tolerance"]
        correct = error <= allowed + 1e-12 * max(1.0, abs(expected))
        return Grade(correct, 1.0 if correct else 0.0, {"expected": expected, "unit": spec["unit"], "given_in_answer_unit": given})
    if kind == Kind.ORDERING:
        items = key["items"]
        given = _require_list(answer, "order")
        if not all(isinstance(item, str) for item in given) or sorted(given) != sorted(items):
            raise AnswerError("order", "order must list every item exactly once")
        position = {item: index for index, item in enumerate(given)}
        correct_pairs = sum(position[items[i]] < position[items[i + 1]] for i in range(len(items) - 1))
        # Share of adjacent pairs of the correct order that the answer keeps in order.
        score = correct_pairs / (len(items) - 1)
        return Grade(given == items, score, {"correct_order": items})
    if kind == Kind.CATEGORIZE:
        placement = answer.get("placement")
        if not isinstance(placement, dict):
            raise AnswerError("placement", "placement must map each item to a bin")
        expected = {item["text"]: item["bin"] for item in key["items"]}
        if set(placement) != set(expected):
            raise AnswerError("placement", "placement must place every item exactly once")
        bad = [text for text, bin_name in placement.items() if bin_name not in key["bins"]]
        if bad:
            raise AnswerError(f"placement.{bad[0]}", "unknown bin")
        right = sum(placement[text] == bin_name for text, bin_name in expected.items())
        return Grade(right == len(expected), right / len(expected), {"correct_placement": expected})
    if kind == Kind.MATCHING:
        matches = answer.get("matches")
        if not isinstance(matches, dict):
            raise AnswerError("matches", "matches must map each left item to a right item")
        expected = {pair["left"]: pair["right"] for pair in key["pairs"]}
        if set(matches) != set(expected):
            raise AnswerError("matches", "matches must cover every left item exactly once")
        if not all(isinstance(value, str) and value in expected.values() for value in matches.values()):
            raise AnswerError("matches", "every match must be one of the right items")
        right = sum(matches[left] == value for left, value in expected.items())
        return Grade(right == len(expected), right / len(expected), {"correct_matches": expected})
    raise AnswerError("kind", "open questions are self-rated, not checked")
