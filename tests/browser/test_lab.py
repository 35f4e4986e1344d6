"""The Inference Lab in a real browser: live charts follow the model/GPU, and chapter links open pre-filled panels."""

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
LAB_PARAMS = {"model", "gpu", "kv_dtype", "weight_dtype", "context_tokens", "batch_size", "tensor_parallel", "phase"}


@pytest.fixture
def catalog():
    from apps.core.content import FIXTURES_DIR, LoadContext
    from apps.simulators.content import load_catalog

    ctx = LoadContext(root=FIXTURES_DIR)
    load_catalog(ctx)
    assert not ctx.errors


def test_switching_model_and_gpu_updates_the_charts(live_server, page, catalog):
    page.goto(f"{live_server.url}/lab?model=llama-3.1-8b&gpu=h100-sxm")
    weights = page.get_by_test_id("segment-weights")
    weights.wait_for()
    expect(weights).to_contain_text("16.06 GB")  # 8,030,261,248 params × 2 B
    page.get_by_label("Model", exact=True).select_option("llama-3.1-70b")
    expect(weights).not_to_contain_text("16.06 GB")
    expect(weights).to_contain_text("141.1 GB")  # 70.55e9 params × 2 B, TP 1
    step = page.get_by_test_id("step-seconds")
    expect(step).to_contain_text("ms")
    before = step.inner_text()
    page.get_by_label("GPU", exact=True).select_option("b200")
    expect(step).not_to_have_text(before)
    assert "gpu=b200" in page.url and "model=llama-3.1-70b" in page.url
    assert page.locator("svg[aria-label='Roofline (log-log)']").count() == 1


def test_chapter_link_opens_a_prefilled_kv_cache_panel(live_server, page, catalog):
    page.goto(f"{live_server.url}/lab/kv-cache?model=llama-3.1-8b&kv_dtype=bf16&context_tokens=8192&batch_size=16")
    expect(page.get_by_test_id("kv-bytes-per-token")).to_have_text("131,072")  # 2 · 32 · 8 · 128 · 2 B
    assert page.get_by_label("Context tokens").input_value() == "8192"
    assert page.get_by_label("Batch size").input_value() == "16"
    assert page.get_by_label("KV dtype").input_value() == "bf16"
    assert page.get_by_label("Model", exact=True).input_value() == "llama-3.1-8b"
    page.get_by_label("KV dtype").select_option("fp8")
    expect(page.get_by_test_id("kv-bytes-per-token")).to_have_text("65,536")
    assert "kv_dtype=fp8" in page.url


def test_the_kv_cache_chapter_links_to_the_lab_with_parameters_it_accepts():
    text = (ROOT / "fixtures/chapters/one-request-one-gpu/06-kv-cache-sizing.md").read_text()
    links = re.findall(r"\((/lab/[^)\s]+)\)", text)
    assert links
    for link in links:
        url = urlparse(link)
        assert url.path.split("/")[2] in {"kv-cache", "fit", "step-time", "throughput-latency", "capacity", "speculative",
                                          "collectives", "paged-kv", "prefix-cache", "moe", "request-walk", "serve-config"}
        assert set(parse_qs(url.query)) <= LAB_PARAMS
    assert "/lab/kv-cache?model=llama-3.1-8b&kv_dtype=bf16&context_tokens=8192&batch_size=16" in links


def test_every_lab_page_in_the_registry_draws_its_own_page(live_server, page, catalog):
    """The Lab finds each page's module by file (its PANELS): every name in apps/core/registry.py opens a page with
    its heading, none the "No simulator called" fallback."""
    from apps.core.registry import LAB_PAGES

    for name, _title in LAB_PAGES:
        page.goto(f"{live_server.url}/lab/{name}")
        heading = page.locator(".lab-tool h1, .lab-tool h2, main h1").first
        heading.wait_for()
        assert "No simulator called" not in page.content(), name
    page.goto(f"{live_server.url}/lab/warp-drive")
    expect(page.get_by_text("No simulator called “warp-drive”.")).to_be_visible()


def test_the_serve_config_page_fits_a_desk_screen(live_server, page, catalog):
    """Its one-line `vllm serve` command scrolls inside its box; the page itself stays as wide as the window."""
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/lab/serve-config")
    page.get_by_text("Command").first.wait_for()
    page.locator(".lab-copy pre").first.wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
