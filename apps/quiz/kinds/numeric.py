"""Numeric questions: a value with a unit and a tolerance; answers in any convertible unit ("140 GB")."""

from __future__ import annotations

import math
import re

from apps.quiz.kinds.base import AnswerError, Grade, KeyError_, LineError, QuestionKind, finite
from apps.quiz.units import UnitError, canonical_unit, convert, parse_quantity


def parse_number(text: str) -> int | float:
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        raise LineError("numeric_value", "enter a number, e.g. 131072 or 1.5e9")


class Numeric(QuestionKind):
    slug, label, order = "numeric", "Numeric", 3
    auto_checked = typed_answer = True
    line_fields = ("numeric_value", "numeric_unit", "numeric_tolerance", "numeric_mode")

    def validate(self, key: dict) -> dict:
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
        if (isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance)
                or tolerance < 0):
            raise KeyError_("numeric.tolerance", "tolerance must be present and a non-negative number")
        mode = spec.get("tolerance_mode", "relative")
        if mode not in ("relative", "absolute"):
            raise KeyError_("numeric.tolerance_mode", "tolerance_mode is relative or absolute")
        if mode == "relative" and tolerance > 1:
            raise KeyError_("numeric.tolerance", "a relative tolerance is a fraction (0.05 = ±5 %)")
        return {"numeric": {"value": value, "unit": unit, "tolerance": tolerance, "tolerance_mode": mode}}

    def public(self, key: dict, shuffle_seed: int) -> dict:
        return {"unit": key["numeric"]["unit"]}

    def grade(self, key: dict, answer: dict, shuffle_seed: int | None) -> Grade:
        spec = key["numeric"]
        raw, unit = answer.get("value"), answer.get("unit")
        if isinstance(raw, str):
            try:
                raw, parsed_unit = parse_quantity(raw)
            except UnitError as exc:
                raise AnswerError("value", str(exc))
            unit = unit or parsed_unit
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not finite(raw):
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
        allowed = spec["tolerance"] * abs(expected) if spec["tolerance_mode"] == "relative" else spec["tolerance"]
        correct = abs(given - expected) <= allowed + 1e-12 * max(1.0, abs(expected))
        return Grade(correct, 1.0 if correct else 0.0,
                     {"expected": expected, "unit": spec["unit"], "given_in_answer_unit": given})

    def explanation(self, key: dict) -> str:
        spec = key["numeric"]
        tolerance = (f"±{spec['tolerance'] * 100:g} %" if spec["tolerance_mode"] == "relative"
                     else f"±{spec['tolerance']:g} {spec['unit']}")
        return f"Expected {spec['value']:g} {spec['unit']} ({tolerance})."

    def card_front(self, key: dict) -> str:
        unit = key["numeric"]["unit"]
        return f"Answer in {unit}." if unit else ""

    def key_from_lines(self, data: dict) -> dict:
        return {"numeric": {
            "value": parse_number((data.get("numeric_value") or "").strip()),
            "unit": data.get("numeric_unit") or "",
            "tolerance": data.get("numeric_tolerance"),
            "tolerance_mode": data.get("numeric_mode") or "relative",
        }}

    def lines_from_key(self, key: dict) -> dict:
        if "numeric" not in key:
            return {}
        spec = key["numeric"]
        return {"numeric_value": str(spec.get("value", "")), "numeric_unit": spec.get("unit", ""),
                "numeric_tolerance": spec.get("tolerance"), "numeric_mode": spec.get("tolerance_mode", "relative")}

    def line_field_for(self, key_field: str) -> str:
        if key_field.startswith("numeric."):
            name = key_field.split(".")[1]
            return "numeric_mode" if name == "tolerance_mode" else f"numeric_{name}"
        return self.line_fields[0]


KINDS = (Numeric(),)
