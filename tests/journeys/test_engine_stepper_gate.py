"""The Lab's step replay, as a learner reads it: on a tight KV cache (Llama-3.1-8B on an H100 at 25 % memory, long
prompts), the engine's first steps show a long prompt held back by vLLM's full-prompt gate although its first chunk
would fit, with the blocks it needs and the blocks free, and then the step where it is admitted."""

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SETTINGS = "gpu_memory_utilization=0.25&prompt=4000&num_requests=40&rate=20&max_num_batched_tokens=2048"


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_the_step_replay_shows_a_long_prompt_held_back_then_admitted(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(f"{site.url}/lab/engine?{SETTINGS}")
    with page.expect_response("**/api/v1/simulators/engine/") as answer:
        page.get_by_role("button", name="Simulate").click()
    log = answer.value.json()["step_log"]
    held = next(row for row in log if row["held_back"])["held_back"] | {"step": next(
        row["step"] for row in log if row["held_back"])}
    admitted = next(row["step"] for row in log if any(a["request"] == held["request"] for a in row["admitted"]))
    # The gate, not the budget: the first chunk (at most the 2,048-token budget, 128 blocks of 16) would have fit.
    assert held["blocks_free"] >= 2048 // 16 and held["blocks_needed"] > held["blocks_free"] and admitted > held["step"]

    steps = page.get_by_test_id("engine-steps")
    expect(steps).to_be_visible(timeout=30_000)
    slider = steps.get_by_role("slider")
    slider.fill(str(held["step"] - 1))
    expect(steps.get_by_test_id("diagram-svg")).to_have_attribute("data-step", str(held["step"]))
    expect(steps.get_by_test_id("step-held-back")).to_have_text(
        f"Request #{held['request']} ({held['tokens']:,} tokens) waits: its whole prompt needs "
        f"{held['blocks_needed']:,} KV blocks and {held['blocks_free']:,} are free (scheduler_reserve_full_isl).")
    steps.scroll_into_view_if_needed()
    shot(page, f"engine-step-held-back-{kind}")
    slider.fill(str(admitted - 1))
    expect(steps.get_by_test_id("step-admitted")).to_contain_text(f"#{held['request']} ({held['tokens']:,}-token prompt)")
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
