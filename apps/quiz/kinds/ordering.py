"""Ordering questions: put the items in order; partly right by the adjacent pairs kept in order."""

from __future__ import annotations

import random

from apps.quiz.kinds.base import AnswerError, Grade, QuestionKind, bullets, lines, require_list, strings


class Ordering(QuestionKind):
    slug, label, order = "ordering", "Ordering", 4
    auto_checked = True
    line_fields = ("ordering_text",)

    def validate(self, key: dict) -> dict:
        return {"items": strings(key.get("items"), "items", 3)}

    def _shuffled(self, key: dict, shuffle_seed: int) -> list[str]:
        items = list(key["items"])
        random.Random(shuffle_seed).shuffle(items)
        if items == key["items"]:
            items.reverse()
        return items

    def public(self, key: dict, shuffle_seed: int) -> dict:
        return {"items": self._shuffled(key, shuffle_seed)}

    def grade(self, key: dict, answer: dict, shuffle_seed: int | None) -> Grade:
        items = key["items"]
        given = require_list(answer, "order")
        if not all(isinstance(item, str) for item in given) or sorted(given) != sorted(items):
            raise AnswerError("order", "order must list every item exactly once")
        position = {item: index for index, item in enumerate(given)}
        kept = sum(position[items[i]] < position[items[i + 1]] for i in range(len(items) - 1))
        # Share of adjacent pairs of the correct order that the answer keeps in order.
        return Grade(given == items, kept / (len(items) - 1), {"correct_order": items})

    def explanation(self, key: dict) -> str:
        return "Correct order: " + " → ".join(key["items"])

    def card_front(self, key: dict) -> str:
        """The items shuffled as practice first shows them (seed 0): the key's order would give the answer away."""
        return "Put in order:\n\n" + bullets(self._shuffled(key, 0))

    def key_from_lines(self, data: dict) -> dict:
        return {"items": lines(data.get("ordering_text", ""))}

    def lines_from_key(self, key: dict) -> dict:
        return {"ordering_text": "\n".join(key.get("items", []))}


KINDS = (Ordering(),)
