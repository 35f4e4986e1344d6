"""A learner asks the sweeps page AIConfigurator's question: the best layout of Llama 3.1 70B on at most 8 H200s under
a TTFT/TPOT SLO, colocated or prefill/decode-disaggregated. Long prompts (8,000 tokens at 2.5 requests/s) and a
45 ms TPOT: colocated, the prompts' prefill steps slow every decode sharing them (p99 TPOT 55 ms or more on every
8-GPU layout); 3 prefill + 1 decode replicas × TP 2 keep the decodes alone (about 32 ms) and meet it. The frontier and the recommendation name that layout and say why
the best colocated one loses; the layouts over 8 GPUs never run."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WINNER = "3 prefill + 1 decode replicas × TP 2 (8 GPUs, KV over NVLink)"


@pytest.fixture
def held_chunks(monkeypatch):
    """The sweep's chunks are kept here instead of going to a broker; the journey plays the worker."""
    from apps.simulators import sweeps

    sent: list[tuple] = []
    monkeypatch.setattr(sweeps, "_send_now", lambda chunks: sent.extend(chunks) or len(chunks))
    return sent


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_a_pd_grid_on_8_gpus_finds_the_disaggregated_layout_that_wins(site, open_page, held_chunks, kind):
    from apps.simulators import sweeps
    from apps.simulators.models import SweepJob

    page, _ = open_page(kind)
    press = (lambda loc: loc.tap()) if kind == "phone" else (lambda loc: loc.click())
    sign_up(page, site.url, f"pd-{kind}")
    page.goto(f"{site.url}/lab/sweeps")
    page.get_by_label("Model", exact=True).select_option(label="Llama 3.1 70B")
    for label, value in (("Arrival rate (req/s)", "2.5"), ("Requests per point", "60"), ("Prompt tokens", "8000"),
                         ("Output tokens", "200"), ("SLO: p99 TTFT (s)", "4"), ("SLO: p99 TPOT (s)", "0.045")):
        page.get_by_label(label).fill(value)
    for label, value in (("GPUs", "h200"), ("Tensor parallel", "2, 4, 8"), ("Replicas", "1, 2, 4"),
                         ("max_num_seqs", ""), ("P/D: prefill replicas", "1, 3"), ("P/D: decode replicas", "1")):
        page.get_by_label(f"{label} (comma-separated)", exact=True).fill(value)
    page.get_by_label("Budget: at most GPUs").fill("8")
    # 3 TP × 3 replica counts colocated, then 3 TP × 2 prefill × 1 decode disaggregated
    expect(page.get_by_text("15 points", exact=True)).to_be_visible()
    shot(page, f"sweep-pd-form-{kind}")
    press(page.get_by_role("button", name="Run sweep"))

    expect(page).to_have_url(re.compile(r"/lab/sweeps/[0-9a-f-]{36}$"))
    job = SweepJob.objects.get(id=page.url.rsplit("/", 1)[1])
    assert job.total_points == 15
    done = 0
    while done < len(held_chunks):  # each stored chunk sends the next ones
        sweeps.sweep_chunk_run(job_id=job.id, chunk=held_chunks[done][1])
        done += 1
    expect(page.get_by_test_id("sweep-status")).to_have_text("succeeded", timeout=30_000)

    # Six layouts need more than 8 GPUs (TP 4 × 4, TP 8 × 2 and × 4; 3 + 1 × TP 4, 1 + 1 and 3 + 1 × TP 8): never run.
    layouts = page.get_by_test_id("sweep-layouts")
    expect(layouts).to_contain_text("3 prefill/decode-disaggregated layouts, each simulated by the engine")
    expect(layouts).to_contain_text("6 points over the budget")
    results = page.get_by_test_id("sweep-results")
    expect(results.locator("td", has_text=re.compile(r"^over budget$"))).to_have_count(6)

    frontier = page.get_by_test_id("sweep-frontier")
    expect(frontier.locator("li").first).to_contain_text(f"{WINNER} — disaggregated")
    rec = page.get_by_test_id("recommendation")
    expect(rec).to_contain_text(f"on {WINNER} on NVIDIA H200")
    expect(rec).to_contain_text("The best colocated layout")
    expect(rec).to_contain_text("--kv-transfer-config")
    comparison = page.get_by_test_id("layout-comparison")
    expect(comparison.locator("li", has_text="Best disaggregated (wins)")).to_contain_text(WINNER)
    expect(comparison.locator("li", has_text="Best colocated")).to_contain_text("prefill interference")
    rec.scroll_into_view_if_needed()
    shot(page, f"sweep-pd-result-{kind}")
    if kind == "phone":  # the recommendation and the comparison reflow (the results table scrolls on its own)
        assert rec.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "recommendation overflows"
    if kind == "phone":
        frontier.scroll_into_view_if_needed()
        shot(page, f"sweep-pd-frontier-{kind}")
