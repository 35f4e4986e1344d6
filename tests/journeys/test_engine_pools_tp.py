"""A learner splits prefill and decode on the Lab's engine page and gives each pool its own tensor parallelism: Llama
3.1 70B on H200, one prefill replica at TP 4 and one decode replica at TP 2 (the form's tensor_parallel, 1, places
neither). The result counts each pool at its TP, 1 · 4 + 1 · 2 = 6 GPUs, and shows the KV transfer between them; the
address bar keeps the pools' TPs, so a reload brings the same run back."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_each_pool_runs_at_its_own_tensor_parallelism(site, open_page, kind):
    page, _ = open_page(kind)
    press = (lambda loc: loc.tap()) if kind == "phone" else (lambda loc: loc.click())
    page.goto(f"{site.url}/lab/engine")
    page.get_by_label("Model", exact=True).select_option(label="Llama 3.1 70B")
    page.get_by_label("GPU", exact=True).select_option(label="NVIDIA H200 SXM 141GB")
    page.get_by_label("Requests", exact=True).fill("40")
    expect(page.get_by_label("Prefill pool TP")).to_have_count(0)  # no split, no pool fields
    page.get_by_label("Prefill replicas (0: no P/D split)").fill("1")
    page.get_by_label("Decode replicas (0: no P/D split)").fill("1")
    page.get_by_label("Prefill pool TP").select_option("4")
    page.get_by_label("Decode pool TP").select_option("2")
    press(page.get_by_role("button", name="Simulate"))
    deployment = page.get_by_test_id("engine-deployment")
    expect(deployment).to_contain_text("6 GPUs in 1 prefill + 1 decode replicas", timeout=30_000)
    expect(deployment).to_contain_text(re.compile(r"KV transfer \d+(\.\d+)? ms mean"))
    expect(page.get_by_test_id("engine-result")).to_contain_text("tokens conserved ✓")
    query = parse_qs(urlparse(page.url).query)
    assert query["prefill_tensor_parallel"] == ["4"] and query["decode_tensor_parallel"] == ["2"], query
    deployment.scroll_into_view_if_needed()
    shot(page, f"engine-pools-tp-{kind}")
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.reload()
    expect(page.get_by_label("Prefill pool TP")).to_have_value("4")
    expect(page.get_by_label("Decode pool TP")).to_have_value("2")
