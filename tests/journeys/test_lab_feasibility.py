"""The Lab checks fit first: Llama-3.1-70B in BF16 on one 80 GB H100 is flagged as not fitting, with the fix named
(the smallest tensor parallelism, or a lighter weight dtype); the fixed setup charts; and the address bar alone
brings back the same setup and the same chart after a reload, on a desk and on a phone."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETUP = "model=llama-3.1-70b&gpu=h100-sxm&weight_dtype=bf16&kv_dtype=bf16&tensor_parallel=1&batch_size=32"


def _infeasible_then_fixed(page, base_url: str, kind: str) -> None:
    page.goto(f"{base_url}/lab?{SETUP}")
    expect(page.get_by_label("Model")).to_have_value("llama-3.1-70b")
    # 70.6 B parameters × 2 bytes = 141.1 GB of weights against 84.98 GB × 0.92 = 78.2 GB: it does not fit on one
    # GPU. At TP 2 each H100 holds 70.6 GB of weights plus half of the 85.9 GB KV cache of 32 × 8,192 tokens, over
    # budget; at TP 4, 35.3 + 21.5 GB fit. So the smallest tensor parallelism that fits (and divides the heads) is 4.
    expect(page.get_by_test_id("fit-fits")).to_have_text("no")
    expect(page.get_by_test_id("fit-min-tp")).to_have_text("4")
    step_warning = page.get_by_test_id("step-infeasible")
    expect(step_warning).to_contain_text("Does not fit")
    expect(step_warning).to_contain_text("Smallest fix: tensor_parallel 4")
    # The cost view does not price a setup that cannot run either.
    expect(page.get_by_test_id("cost-infeasible").or_(page.get_by_test_id("cost-gpus"))).to_be_visible()
    shot(page, f"lab-infeasible-{kind}")

    page.get_by_label("Tensor parallel").fill("4")
    expect(page).to_have_url(re.compile(r"tensor_parallel=4"))
    expect(page.get_by_test_id("fit-fits")).to_have_text("yes")
    expect(page.get_by_test_id("step-infeasible")).to_have_count(0)
    roofline = page.locator("svg[aria-label='Roofline (log-log)']")
    expect(roofline).to_be_visible()
    curve = page.locator("svg[aria-label^='Throughput vs latency']")
    expect(curve).to_be_visible()
    step = page.get_by_test_id("step-seconds").inner_text()
    page.get_by_test_id("step-seconds").scroll_into_view_if_needed()
    shot(page, f"lab-feasible-{kind}")
    assert re.match(r"^\d", step), step

    page.reload()
    expect(page.get_by_label("Model")).to_have_value("llama-3.1-70b")
    expect(page.get_by_label("GPU")).to_have_value("h100-sxm")
    expect(page.get_by_label("Weight dtype")).to_have_value("bf16")
    expect(page.get_by_label("Tensor parallel")).to_have_value("4")
    expect(page.get_by_label("Batch size")).to_have_value("32")
    expect(page.get_by_test_id("fit-fits")).to_have_text("yes")
    expect(page.get_by_test_id("step-seconds")).to_have_text(step)
    expect(roofline).to_be_visible()
    expect(curve).to_be_visible()


def test_infeasible_setup_is_flagged_then_the_fix_charts_and_the_url_restores_it(site, desktop):
    page, _ = desktop
    _infeasible_then_fixed(page, site.url, "desktop")


def test_infeasible_setup_on_a_phone(site, phone):
    page, _ = phone
    _infeasible_then_fixed(page, site.url, "phone")
    # Nothing runs off the side of a 390 px screen, and the inputs scroll away instead of covering the results.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("getComputedStyle(document.querySelector('.lab-form')).position") == "static"


def test_step_time_panel_names_the_smaller_dtype_fix(site, desktop):
    page, _ = desktop
    page.goto(f"{site.url}/lab/step-time?{SETUP}&batch_size=1&context_tokens=1024")
    warning = page.get_by_test_id("step-infeasible")
    expect(warning).to_contain_text("Does not fit: the weights alone")
    # At TP 1 the 70.6 GB of FP8 weights fit the 78.2 GB budget with one short sequence: the dtype fix is named.
    expect(warning).to_contain_text("weight_dtype fp8 at TP 1")
    page.get_by_label("Weight dtype").select_option("fp8")
    expect(page.get_by_test_id("step-infeasible")).to_have_count(0)
    expect(page.locator("svg[aria-label='Roofline (log-log)']")).to_be_visible()
    page.reload()
    expect(page.get_by_label("Weight dtype")).to_have_value("fp8")
    roofline = page.locator("svg[aria-label='Roofline (log-log)']")
    expect(roofline).to_be_visible()
    expect(page.get_by_test_id("step-bound")).to_have_text("memory")
    expect(page.get_by_test_id("step-infeasible")).to_have_count(0)
    # Every chart names its resources in full: the time bars' labels are not clipped.
    bars = page.locator("svg[aria-label^='Time per step by resource']")
    expect(bars.get_by_text("Communication", exact=True)).to_be_visible()
    # a dense model's layer is its GEMMs and attention, one after the other; the bars add up to the step
    expect(bars.get_by_text("GEMMs", exact=False)).to_be_visible()
    expect(bars.get_by_text("Attention", exact=False)).to_be_visible()
    expect(bars.get_by_text("Experts", exact=False)).to_have_count(0)
    roofline.scroll_into_view_if_needed()


MOE = "model=mixtral-8x7b&gpu=h200&weight_dtype=fp8&kv_dtype=fp8&tensor_parallel=1&batch_size=1024&context_tokens=512"


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_a_moe_step_shows_its_experts_compute_and_memory_as_two_bars(site, open_page, kind):
    """A MoE's routed experts take their compute plus their memory traffic, weights and elementwise kernels (the
    no-overlap bound), so the time bars show both, and their fixed kernel time a third bar taken out of the overhead;
    the GEMMs and attention keep one bar each at the longer of the two, and nothing is clipped."""
    page, _ = open_page(kind)
    page.goto(f"{site.url}/lab/step-time?{MOE}&phase=decode")
    bars = page.locator("svg[aria-label^='Time per step by resource']")
    expect(bars).to_be_visible()
    bars.scroll_into_view_if_needed()
    # a long tick label wraps onto two lines (two tspans), so the labels are matched across the break
    for label in (r"Experts\s*\(compute\)", r"Experts\s*\(memory\)", r"Experts\s*\(fixed\s*kernels\)",
                  "Communication", "Overhead"):
        expect(bars.get_by_text(re.compile(f"^{label}$"))).to_be_visible()
    expect(bars.get_by_text(re.compile(r"^GEMMs\s*\((compute|memory)\)$"))).to_have_count(1)
    expect(bars.get_by_text(re.compile(r"^Attention\s*\((compute|memory)\)$"))).to_have_count(1)
    shot(page, f"lab-moe-step-bars-{kind}")
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
