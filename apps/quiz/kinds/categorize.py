"""Categorize questions: place each item in one of the bins; partly right by the share placed right."""

from __future__ import annotations

import random

from apps.quiz.kinds.base import AnswerError, Grade, KeyError_, LineError, QuestionKind, bullets, lines, strings


class Categorize(QuestionKind):
    slug, label, order = "categorize", "Categorize", 5
    auto_checked = True
    line_fields = ("categorize_text",)

    def validate(self, key: dict) -> dict:
        bins = strings(key.get("bins"), "bins", 2)
        items = key.get("items")
        if not isinstance(items, list) or len(items) < 2:
            raise KeyError_("items", "categorize questions need at least two items")
        normalized = []
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
                raise KeyError_(f"items.{index}.text", "each item needs a text")
            if item.get("bin") not in bins:
                raise KeyError_(f"items.{index}.bin",
                                f"item '{item['text']}' is in bin '{item.get('bin')}', which is not one of the bins")
            normalized.append({"text": item["text"], "bin": item["bin"]})
        if len({item["text"] for item in normalized}) != len(normalized):
            raise KeyError_("items", "two items have the same text")
        return {"bins": bins, "items": normalized}

    def public(self, key: dict, shuffle_seed: int) -> dict:
        items = [item["text"] for item in key["items"]]
        random.Random(shuffle_seed).shuffle(items)
        return {"bins": key["bins"], "items": items}

    def grade(self, key: dict, answer: dict, shuffle_seed: int | None) -> Grade:
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

    def explanation(self, key: dict) -> str:
        return "\n".join(f"{name}: " + ", ".join(item["text"] for item in key["items"] if item["bin"] == name)
                         for name in key["bins"])

    def card_front(self, key: dict) -> str:
        items = self.public(key, 0)["items"]
        return ("Bins: " + "; ".join(key["bins"]) + "\n\nPlace each item:\n\n" + bullets(items))

    def key_from_lines(self, data: dict) -> dict:
        bins: list[str] = []
        items = []
        for number, line in enumerate(lines(data.get("categorize_text", "")), start=1):
            bin_name, sep, item = line.partition(":")
            if not sep or not bin_name.strip() or not item.strip():
                raise LineError("categorize_text", f"line {number}: write 'bin: item'")
            if bin_name.strip() not in bins:
                bins.append(bin_name.strip())
            items.append({"text": item.strip(), "bin": bin_name.strip()})
        return {"bins": bins, "items": items}

    def lines_from_key(self, key: dict) -> dict:
        return {"categorize_text": "\n".join(f"{item['bin']}: {item['text']}" for item in key.get("items", []))}


KINDS = (Categorize(),)
