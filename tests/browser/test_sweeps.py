"""Build a small sweep in the web client, watch it finish, read the Pareto plot and the recommendation."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def catalog(transactional_db):
    """The simulator catalog the sweep's model and GPUs come from."""
    from apps.core.content import FIXTURES_DIR, LoadContext
    from apps.simulators.content import load_catalog

    load_catalog(LoadContext(root=FIXTURES_DIR))


def test_sweep_runs_to_a_recommendation(live_server, page, eager, catalog):
    page.goto(f"{live_server.url}/signup")
    page.get_by_label("Username").fill("sweeper")
    page.get_by_label("Password").fill("correct-horse-battery-9")
    page.get_by_role("button", name="Create account").click()
    page.get_by_test_id("signed-in-as").wait_for()
    page.goto(f"{live_server.url}/lab/sweeps")
    page.get_by_label("Requests per point").fill("40")
    page.get_by_label("GPUs (comma-separated)").fill("h100-sxm")
    page.get_by_label("Tensor parallel (comma-separated)").fill("1, 2")
    page.get_by_label("max_num_seqs (comma-separated)").fill("16, 64")
    page.get_by_role("button", name="Run sweep").click()
    page.get_by_test_id("sweep-progress").wait_for()
    page.wait_for_function("document.querySelector('[role=progressbar]')?.getAttribute('aria-valuenow') === '100'")
    assert "4 / 4 points" in page.get_by_test_id("sweep-progress").inner_text()
    assert page.get_by_test_id("sweep-status").inner_text() == "succeeded"
    assert page.get_by_test_id("pareto-plot").locator("circle").count() >= 1
    assert "vllm serve" in page.get_by_test_id("recommendation").inner_text()
    assert page.get_by_test_id("sweep-results").locator("tbody tr").count() == 4
