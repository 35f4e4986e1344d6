"""Watch your own prompt: a learner types a prompt, picks an answer to stream, and steps through the request — the
prompt's tokens, prefill emitting the answer's first token, each decode step emitting the next with what it reads —
and the times shown are the step-time endpoint's for the same setup. An impossible setup is flagged with its fix."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def seconds(text: str) -> float:
    value, unit = re.match(r"([\d.]+)\s*(µs|ms|s)", text).groups()
    return float(value) * {"µs": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_watch_your_own_prompt_step_by_step(site, request, viewport):
    page, _ = request.getfixturevalue(viewport)
    page.goto(f"{site.url}/lab/request-walk")
    prompt = page.get_by_label("Prompt")
    prompt.fill("Why does a long prompt raise time to first token?")
    page.get_by_test_id("walk-samples").select_option("2")  # "Memory bandwidth."
    expect(page.get_by_label("Answer to stream (≤ 256 tokens)")).to_have_value("Memory bandwidth.")
    expect(page.get_by_test_id("walk-prompt-tokens")).to_have_text("11")
    narration = page.get_by_test_id("walk-narration")
    expect(narration).to_contain_text("11 tokens")
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.get_by_test_id("walk-position")).to_have_text("prefill done (first token)")
    expect(narration).to_contain_text("Prefill: one forward pass over all 11 prompt tokens")
    expect(narration).to_contain_text("32 layers")
    expect(page.get_by_test_id("walk-output-token")).to_have_text(["Memory"])
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.get_by_test_id("walk-output-token")).to_have_text(["Memory", "·bandwidth"])
    expect(narration).to_contain_text("Decode step 1")
    expect(narration).to_contain_text("of the bytes being weights")
    # The TTFT shown is the step-time endpoint's prefill of the same 11 tokens (prefill emits the first token).
    from django.test import Client

    step = Client().post("/api/v1/simulators/step-time/", {
        "model": "llama-3.1-8b", "gpu": "h100-sxm", "phase": "prefill", "context_tokens": 11, "batch_size": 1},
        content_type="application/json").json()
    ttft = page.locator(".lab-stat", has_text="TTFT").locator("dd").inner_text()
    assert seconds(ttft) == pytest.approx(step["step_seconds"], rel=5e-3)
    shot(page, f"watch-your-prompt-{viewport}")
    if viewport == "phone":  # the form's selects (long option texts) stay within the phone's width
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # A fresh result keeps the learner where they are: a longer answer lengthens the walk, and step 1 stays step 1.
    page.get_by_test_id("walk-samples").select_option("1")  # "Because generating a token needs ..."
    expect(page.get_by_test_id("walk-position")).to_have_text(re.compile(r"^decode step 1 of ([3-9]|\d\d+)$"))
    expect(page.get_by_test_id("walk-output-token")).to_have_text(["Because", "·generating"])


def test_an_impossible_setup_is_flagged_with_its_fix(site, desktop):
    page, _ = desktop
    page.goto(f"{site.url}/lab/request-walk?model=llama-3.1-70b&gpu=h100-sxm&tensor_parallel=1")
    flag = page.get_by_test_id("walk-infeasible")
    expect(flag).to_contain_text("Does not fit")
    expect(flag).to_contain_text("tensor parallel 2")
    page.get_by_label("Tensor parallel (GPUs)").fill("2")
    expect(flag).to_have_count(0)
    shot(page, "watch-your-prompt-fits-at-tp2")
