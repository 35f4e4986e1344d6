"""Request walk meters: as the walk runs prefill and then decode, a GPU-compute meter and a memory-bandwidth meter
fill with the step's achieved rate against the GPU's peak, the numbers the request-walk API returns for that step.
A long prompt's prefill fills the compute meter; each decode step fills the bandwidth meter instead."""

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROMPT = "Explain how the KV cache grows while a model answers a long question about GPUs. " * 40


def meter(page, key: str) -> float:
    return float(page.get_by_test_id(f"walk-meter-{key}").get_attribute("data-value"))


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_the_meters_fill_with_compute_in_prefill_and_bandwidth_in_decode(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(f"{site.url}/lab/request-walk")
    expect(page.get_by_test_id("walk-prompt-tokens")).to_be_visible(timeout=15_000)  # the default walk is shown
    with page.expect_response("**/simulators/request-walk/"):
        page.get_by_label("Prompt").fill(PROMPT)
    # The answer the page shows is the one to its last request: read the numbers from that response.
    with page.expect_response("**/simulators/request-walk/") as later:
        page.get_by_test_id("walk-samples").select_option("2")  # a short answer: "Memory bandwidth."
    answer = later.value.json()
    assert answer["prompt_tokens"] > 500
    meters = page.get_by_test_id("walk-meters")
    expect(meters).to_contain_text("idle before prefill")
    assert meter(page, "compute") == 0 and meter(page, "memory") == 0

    page.get_by_role("button", name="Step", exact=True).click()
    expect(meters).to_contain_text("Prefill: how busy the GPU is")
    prefill = answer["timeline"][0]
    assert prefill["bound"] == "compute"
    expect(page.get_by_test_id("walk-meter-compute")).to_have_attribute("data-value", f"{prefill['compute_utilization']:.4f}")
    expect(page.get_by_test_id("walk-meter-memory")).to_have_attribute("data-value", f"{prefill['bandwidth_utilization']:.4f}")
    assert meter(page, "compute") > meter(page, "memory")
    expect(page.get_by_test_id("walk-meter-compute").get_by_role("meter")).to_have_attribute(
        "aria-valuenow", str(round(prefill["compute_utilization"] * 100)))
    page.get_by_test_id("walk-meters").scroll_into_view_if_needed()
    shot(page, f"walk-meters-prefill-{kind}")

    page.get_by_role("button", name="Step", exact=True).click()
    expect(meters).to_contain_text("Decode step 1: how busy the GPU is")
    decode = answer["timeline"][1]
    expect(page.get_by_test_id("walk-meter-memory")).to_have_attribute("data-value", f"{decode['bandwidth_utilization']:.4f}")
    expect(page.get_by_test_id("walk-meter-compute")).to_have_attribute("data-value", f"{decode['compute_utilization']:.4f}")
    assert meter(page, "memory") > 0.3 > 0.05 > meter(page, "compute")
    # The meters take the concept colours: compute and memory as everywhere else.
    fills = [page.get_by_test_id(f"walk-meter-{k}").locator(".lab-meter-fill").evaluate("el => getComputedStyle(el).backgroundColor")
             for k in ("compute", "memory")]
    assert fills[0] != fills[1]
    page.get_by_test_id("walk-meters").scroll_into_view_if_needed()
    shot(page, f"walk-meters-decode-{kind}")
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
