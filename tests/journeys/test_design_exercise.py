"""A learner opens a design exercise from the practice page, submits a first deployment that misses the SLO (four
sequences at a time: requests queue), reads the feedback (what binds, what the best answer did differently), fixes
it to the release's best deployment and passes with full marks, then rates the rationale. Desk and phone width."""

import re

import pytest
from playwright.sync_api import expect

from apps.exercises.models import DesignExercise
from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SLUG = "chat-llama70b-support"


def set_deployment(form, deployment: dict) -> None:
    form.get_by_label("GPU").select_option(deployment["gpu"])
    form.get_by_label("Tensor parallel").select_option(str(deployment["tensor_parallel"]))
    form.get_by_label("Replicas").fill(str(deployment["replicas"]))
    form.get_by_label("Weights").select_option(deployment["weight_dtype"])
    form.get_by_label("KV cache").select_option(deployment["kv_dtype"])
    form.get_by_label("max_num_seqs").fill(str(deployment["max_num_seqs"]))
    form.get_by_label("max_num_batched_tokens").fill(str(deployment["max_num_batched_tokens"]))
    form.get_by_label("Prefix caching").set_checked(deployment["prefix_caching"])
    form.get_by_label("Chunked prefill").set_checked(deployment["chunked_prefill"])


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_a_first_deployment_misses_the_slo_and_the_fix_passes(site, open_page, kind):
    page, _ = open_page(kind)
    sign_up(page, site.url, f"designer-{kind}")
    best = DesignExercise.objects.get(slug=SLUG).best["deployment"]
    assert best["disaggregation"] is None, "this journey's form path sets replicas"

    page.goto(f"{site.url}/practice")
    page.get_by_role("link", name="design exercises").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Design exercises")
    page.get_by_role("link", name=re.compile("customer-support chat assistant")).click()
    expect(page).to_have_url(re.compile(f"/practice/design/{SLUG}$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Llama 3.1 70B")

    form = page.get_by_role("form", name="Your deployment")
    set_deployment(form, {**best, "max_num_seqs": 4})
    form.get_by_label(re.compile("^Rationale")).fill("Few sequences at a time keep TPOT low.")
    form.get_by_role("button", name="Grade my deployment").click()
    grade = page.get_by_test_id("design-grade")
    expect(grade.get_by_role("heading", level=2)).to_contain_text("Misses the SLO")
    expect(grade.get_by_test_id("design-score")).to_have_text("20")
    expect(grade).to_contain_text("Binding constraint: p99 TTFT")
    expect(grade).to_contain_text("max_num_seqs: yours 4, best 256")
    shot(page, f"design-exercise-missed-{kind}")

    set_deployment(form, best)
    form.get_by_role("button", name="Grade my deployment").click()
    expect(grade.get_by_role("heading", level=2)).to_contain_text("Meets the SLO")
    expect(grade.get_by_test_id("design-score")).to_have_text("100")
    expect(grade).to_contain_text("Nothing: yours is the same deployment.")
    grade.get_by_role("checkbox").first.check()
    grade.get_by_role("button", name="Save my rating").click()
    expect(grade).to_contain_text("Rationale:")
    history = page.get_by_role("list").filter(has_text="100/100 · Meets the SLO")
    expect(history).to_contain_text("20/100 · Misses the SLO")
    lab = form.get_by_role("link", name="Open these settings in the Lab")
    expect(lab).to_have_attribute("href", re.compile(rf"/lab/engine\?model=llama-3.1-70b&gpu={best['gpu']}"))
    shot(page, f"design-exercise-passed-{kind}")

    # The Lab runs the same simulation: same traffic, seed and knobs, so the same p99 TTFT.
    graded_ttft = grade.locator("table tr", has_text="p99 TTFT").locator("td").first.inner_text()
    lab.click()
    expect(page).to_have_url(re.compile("/lab/engine"))
    page.get_by_role("button", name="Simulate", exact=True).click()
    lab_ttft = page.get_by_test_id("engine-result").locator("tr", has_text="TTFT").locator("td").nth(2)
    expect(lab_ttft).to_have_text(graded_ttft)

    page.goto(f"{site.url}/practice/design")
    expect(page.get_by_label("Your best score 100")).to_be_visible()
