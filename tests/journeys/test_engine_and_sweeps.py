"""The engine and the sweeps, as a learner meets them: pick a model and a GPU from the catalog, run the engine, read the
results, and get the same settings back from the address bar; run a sweep whose progress bar advances as the workers
store points, and cancel it; signed out, a sweep attempt offers a way to sign in."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _run_engine(page) -> str:
    page.get_by_role("button", name="Simulate").click()
    result = page.get_by_test_id("engine-result")
    expect(result).to_be_visible(timeout=30_000)
    expect(page.get_by_role("button", name="Simulate")).to_be_enabled()
    return result.locator("tbody tr").first.inner_text()


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_engine_run_from_catalog_pickers_and_the_url_restores_it(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(f"{site.url}/lab/engine")
    expect(page.get_by_role("heading", name="Engine simulator")).to_be_visible()
    # The catalog, not free text: a display name is chosen, its slug travels.
    page.get_by_label("Model", exact=True).select_option(label="Llama 3.1 70B")
    page.get_by_label("GPU", exact=True).select_option(label="NVIDIA H200 SXM 141GB")
    page.get_by_label("Tensor parallel").fill("4")
    page.get_by_label("Requests", exact=True).fill("60")
    page.get_by_label("Prefix caching").check()
    expect(page).to_have_url(re.compile(r"model=llama-3\.1-70b"))
    first_row = _run_engine(page)
    result = page.get_by_test_id("engine-result")
    expect(result.locator("tbody th").first).to_have_text("TTFT")
    assert re.search(r"\d+(\.\d+)? ms", first_row), first_row
    expect(result).to_contain_text("output tokens/s")
    expect(result).to_contain_text("tokens conserved ✓")
    expect(result.locator("svg[aria-label='TTFT distribution']")).to_be_visible()

    query = parse_qs(urlparse(page.url).query)
    assert query["model"] == ["llama-3.1-70b"] and query["gpu"] == ["h200"], query
    assert query["tensor_parallel"] == ["4"] and query["num_requests"] == ["60"] and query["prefix_caching"] == ["true"]

    page.reload()
    expect(page.get_by_label("Model", exact=True)).to_have_value("llama-3.1-70b")
    expect(page.get_by_label("GPU", exact=True)).to_have_value("h200")
    expect(page.get_by_label("Tensor parallel")).to_have_value("4")
    expect(page.get_by_label("Requests", exact=True)).to_have_value("60")
    expect(page.get_by_label("Prefix caching")).to_be_checked()
    # Same settings and seed: the same simulated latencies.
    assert _run_engine(page) == first_row
    page.get_by_test_id("engine-result").scroll_into_view_if_needed()
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.fixture
def held_chunks(monkeypatch, settings):
    """The sweep's chunks are kept here instead of going to a broker: the journey plays the worker, one chunk at a
    time, so the learner sees the progress bar move. One point per chunk."""
    from apps.simulators import sweeps

    settings.SWEEP_CHUNK_TARGET_S = 1e-6
    sent: list[tuple] = []
    monkeypatch.setattr(sweeps, "_send_now", lambda chunks: sent.extend(chunks) or len(chunks))
    return sent


def test_sweep_progress_advances_and_cancel_stops_it(site, desktop, held_chunks):
    from apps.simulators import sweeps
    from apps.simulators.models import SweepJob

    page, _ = desktop
    sign_up(page, site.url, "sweeper")
    page.goto(f"{site.url}/lab/sweeps")
    page.get_by_label("Model", exact=True).select_option(label="Llama 3.1 8B")
    expect(page.get_by_label("Model", exact=True)).to_have_value("llama-3.1-8b")
    page.get_by_label("Requests per point").fill("40")
    page.get_by_label("GPUs (comma-separated)").fill("h100-sxm, a100-80gb")
    page.get_by_label("Tensor parallel (comma-separated)").fill("1, 2")
    page.get_by_label("max_num_seqs (comma-separated)").fill("8, 16, 32, 64, 128")
    expect(page.get_by_text("20 points")).to_be_visible()
    expect(page.get_by_role("combobox", name="Search")).to_have_value("two_stage")
    page.get_by_role("button", name="Run sweep").click()

    expect(page).to_have_url(re.compile(r"/lab/sweeps/[0-9a-f-]{36}$"))
    job = SweepJob.objects.get(id=page.url.rsplit("/", 1)[1])
    # Two stages: the closed-form screen priced all 20 points at once; the engine simulates the candidates (at least
    # 16 points, so here 16 of 20), one point per chunk.
    expect(page.get_by_test_id("sweep-screen")).to_contain_text("priced all 20 points")
    bar = page.get_by_role("progressbar", name="Sweep progress")
    expect(bar).to_have_attribute("aria-valuenow", "0")
    expect(page.get_by_test_id("sweep-progress")).to_contain_text(f"0 / {job.total_points} points")
    assert job.total_points == 16 and held_chunks, (job.total_points, held_chunks)

    # A worker stores the first two chunks: 2 of 16 points, 12.5 % → the bar shows 13.
    for _, chunk in held_chunks[:2]:
        assert sweeps.sweep_chunk_run(job_id=job.id, chunk=chunk) == 1
    expect(page.get_by_test_id("sweep-progress")).to_contain_text("2 / 16 points simulated (13 %)")
    expect(bar).to_have_attribute("aria-valuenow", "13")
    expect(page.get_by_test_id("sweep-status")).to_have_text("running")
    expect(page.get_by_test_id("sweep-results").locator("tbody tr")).to_have_count(2)
    shot(page, "sweep-running")

    page.get_by_role("button", name="Cancel sweep").click()
    expect(page.get_by_test_id("sweep-status")).to_have_text("cancelled")
    expect(page.get_by_role("button", name="Cancel sweep")).to_have_count(0)
    # A chunk that reaches a worker after the cancel stores nothing.
    assert sweeps.sweep_chunk_run(job_id=job.id, chunk=2) == 0
    page.reload()
    expect(page.get_by_test_id("sweep-status")).to_have_text("cancelled")
    expect(page.get_by_test_id("sweep-progress")).to_contain_text("2 / 16 points")
    # Rows hold real numbers, never 0.000 placeholders.
    expect(page.get_by_test_id("sweep-results").locator("td", has_text=re.compile(r"^0\.000$"))).to_have_count(0)


def test_signed_out_sweep_on_a_phone_offers_sign_in(site, phone):
    page, _ = phone
    page.goto(f"{site.url}/lab/sweeps")
    page.get_by_role("button", name="Run sweep").click()
    notice = page.get_by_test_id("sweep-sign-in")
    expect(notice).to_have_attribute("role", "alert")
    expect(notice.get_by_role("link", name="Log in")).to_be_visible()
    expect(notice.get_by_role("link", name="sign up")).to_be_visible()
    expect(page.get_by_text("Authentication credentials were not provided")).to_have_count(0)
