"""Answering practice questions the way a learner does, from the question's key."""

from playwright.sync_api import expect

# Decimal and binary byte units and time units, in base units: enough to answer in a unit other than the key's.
SCALE = {
    "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
    "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1,
}
OTHER_UNIT = {"B": "KB", "KB": "MB", "MB": "GB", "GB": "MB", "TB": "GB", "ms": "s", "s": "ms", "us": "ms", "ns": "us"}


def answer_correctly(page, question) -> str:
    """Answers the question shown on the page; returns the verdict heading expected ("Correct" or "Model answer")."""
    key = question.key
    if question.kind in ("single_choice", "multiple_choice"):
        for option in key["options"]:
            if option["correct"]:
                page.locator("label.choice", has_text=option["text"]).locator("input").check()
    elif question.kind == "numeric":
        spec = key["numeric"]
        unit = spec["unit"]
        other = OTHER_UNIT.get(unit)
        if other:  # a unit-converted answer: the server converts before comparing
            value = spec["value"] * SCALE[unit] / SCALE[other]
            page.get_by_label("Unit").select_option(other)
        else:
            value = spec["value"]
        page.get_by_label("Your answer").fill(f"{value:.6g}")
    elif question.kind == "open":
        page.get_by_role("button", name="Reveal answer").click()
        expect(page.get_by_test_id("result")).to_contain_text("Model answer")
        page.get_by_role("button", name="3 Good").click()
        return "Model answer"
    else:
        raise AssertionError(f"no scripted answer for {question.kind}")
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_test_id("result")).to_contain_text("Correct")
    return "Correct"
