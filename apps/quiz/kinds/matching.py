"""Matching questions: match each left item to a right item; partly right by the share matched right."""

from __future__ import annotations

import random

from apps.quiz.kinds.base import AnswerError, Grade, KeyError_, LineError, QuestionKind, bullets, lines


class Matching(QuestionKind):
    slug, label, order = "matching", "Matching", 6
    auto_checked = True
    line_fields = ("matching_text",)

    def validate(self, key: dict) -> dict:
        pairs = key.get("pairs")
        if not isinstance(pairs, list) or len(pairs) < 2:
            raise KeyError_("pairs", "matching questions need at least two pairs")
        normalized = []
        for index, pair in enumerate(pairs):
            if not isinstance(pair, dict) or not all(isinstance(pair.get(side), str) and pair[side].strip()
                                                     for side in ("left", "right")):
                raise KeyError_(f"pairs.{index}", "each pair needs a left and a right text")
            normalized.append({"left": pair["left"], "right": pair["right"]})
        for side in ("left", "right"):
            if len({pair[side] for pair in normalized}) != len(normalized):
                raise KeyError_("pairs", f"two pairs have the same {side} text")
        return {"pairs": normalized}

    def public(self, key: dict, shuffle_seed: int) -> dict:
        rights = [pair["right"] for pair in key["pairs"]]
        random.Random(shuffle_seed).shuffle(rights)
        return {"left": [pair["left"] for pair in key["pairs"]], "right": rights}

    def grade(self, key: dict, answer: dict, shuffle_seed: int | None) -> Grade:
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

    def explanation(self, key: dict) -> str:
        return "\n".join(f"{pair['left']} → {pair['right']}" for pair in key["pairs"])

    def card_front(self, key: dict) -> str:
        shown = self.public(key, 0)
        return "Match each of:\n\n" + bullets(shown["left"]) + "\n\nwith one of:\n\n" + bullets(shown["right"])

    def key_from_lines(self, data: dict) -> dict:
        pairs = []
        for number, line in enumerate(lines(data.get("matching_text", "")), start=1):
            left, sep, right = line.partition("=>")
            if not sep:
                raise LineError("matching_text", f"line {number}: write 'left => right'")
            pairs.append({"left": left.strip(), "right": right.strip()})
        return {"pairs": pairs}

    def lines_from_key(self, key: dict) -> dict:
        return {"matching_text": "\n".join(f"{pair['left']} => {pair['right']}" for pair in key.get("pairs", []))}


KINDS = (Matching(),)
