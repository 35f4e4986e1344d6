"""Single- and multiple-choice questions: options shown shuffled (authors tend to write the right one first),
answered by index into the shuffled list."""

from __future__ import annotations

import random
import re

from apps.quiz.kinds.base import AnswerError, Grade, KeyError_, LineError, QuestionKind, bullets, lines, require_list

OPTION_LINE = re.compile(r"^\[(?P<mark>[ xX])\]\s*(?P<text>.+)$")
WHY_LINE = re.compile(r"^\s+why:\s*(?P<why>.+)$")


def option_order(key: dict, shuffle_seed: int) -> list[int]:
    """The deterministic display order of the options (original indexes); grade() maps answers back with it."""
    order = list(range(len(key["options"])))
    random.Random(shuffle_seed).shuffle(order)
    return order


class Choice(QuestionKind):
    auto_checked = True
    line_fields = ("options_text",)
    single = True

    def validate(self, key: dict) -> dict:
        options = key.get("options")
        if not isinstance(options, list) or len(options) < 2:
            raise KeyError_("options", "choice questions need at least two options")
        normalized = []
        for index, option in enumerate(options):
            if not isinstance(option, dict) or not isinstance(option.get("text"), str) or not option["text"].strip():
                raise KeyError_(f"options.{index}.text", "each option needs a text")
            if not isinstance(option.get("correct", False), bool):
                raise KeyError_(f"options.{index}.correct", "correct must be true or false")
            normalized.append({"text": option["text"], "correct": option.get("correct", False),
                               **({"why": option["why"]} if option.get("why") else {})})
        if len({option["text"] for option in normalized}) != len(normalized):
            raise KeyError_("options", "two options have the same text")
        correct = sum(option["correct"] for option in normalized)
        if self.single and correct != 1:
            raise KeyError_("options", f"a single-choice question has exactly one correct option (found {correct})")
        if not self.single and correct < 1:
            raise KeyError_("options", "a multiple-choice question has at least one correct option")
        return {"options": normalized}

    def public(self, key: dict, shuffle_seed: int) -> dict:
        return {"options": [key["options"][index]["text"] for index in option_order(key, shuffle_seed)]}

    def grade(self, key: dict, answer: dict, shuffle_seed: int | None) -> Grade:
        if shuffle_seed is not None:
            key = {**key, "options": [key["options"][index] for index in option_order(key, shuffle_seed)]}
        count = len(key["options"])
        chosen = require_list(answer, "selected")
        if not all(isinstance(index, int) and not isinstance(index, bool) and 0 <= index < count for index in chosen):
            raise AnswerError("selected", f"selected must be option indexes between 0 and {count - 1}")
        chosen_set = set(chosen)
        if self.single and len(chosen_set) != 1:
            raise AnswerError("selected", "choose exactly one option")
        right = {index for index, option in enumerate(key["options"]) if option["correct"]}
        if self.single:
            score = 1.0 if chosen_set == right else 0.0
        else:  # share of options classified correctly (chosen when right, left out when wrong)
            score = sum((index in chosen_set) == (index in right) for index in range(count)) / count
        return Grade(chosen_set == right, score, {"correct_options": sorted(right)})

    def explanation(self, key: dict) -> str:
        right = [option for option in key["options"] if option["correct"]]
        out = ["Correct: " + "; ".join(option["text"] for option in right)]
        out += [f"{option['text']}: {option['why']}" for option in key["options"] if option.get("why")]
        return "\n".join(out)

    def card_front(self, key: dict) -> str:
        hint = "Choose one:" if self.single else "Choose all that apply:"
        return f"{hint}\n\n" + bullets([option["text"] for option in key["options"]])

    def key_from_lines(self, data: dict) -> dict:
        options: list[dict] = []
        for number, line in enumerate(lines(data.get("options_text", "")), start=1):
            why = WHY_LINE.match(line)
            if why and options:
                options[-1]["why"] = why["why"].strip()
                continue
            match = OPTION_LINE.match(line.strip())
            if not match:
                raise LineError("options_text", f"line {number}: write '[x] right option' or '[ ] wrong option'")
            options.append({"text": match["text"].strip(), "correct": match["mark"] != " "})
        return {"options": options}

    def lines_from_key(self, key: dict) -> dict:
        out = []
        for option in key.get("options", []):
            out.append(f"[{'x' if option.get('correct') else ' '}] {option.get('text', '')}")
            if option.get("why"):
                out.append(f"    why: {option['why']}")
        return {"options_text": "\n".join(out)}


class SingleChoice(Choice):
    slug, label, order, single = "single_choice", "Single choice", 1, True


class MultipleChoice(Choice):
    slug, label, order, single = "multiple_choice", "Multiple choice", 2, False


KINDS = (SingleChoice(), MultipleChoice())
