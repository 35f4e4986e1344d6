"""A run past the synchronous cap, as a signed-in learner meets it in the Lab: 20,000 requests are refused at once
with the cap named, run in the background with a progress bar, cancelled mid-way, then run again to the result.
The journey plays the worker (in a thread of its own, held at its first progress report while the page is read)."""

import re
import threading

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def held_jobs(monkeypatch):
    from apps.simulators import engine_jobs

    sent: list[str] = []
    monkeypatch.setattr(engine_jobs, "_send", sent.append)
    return sent


def work(job_id: str) -> threading.Thread:
    """The worker: engine_job_run in a thread, as a Celery worker process would run it."""
    from django.db import connection

    from apps.simulators import engine_jobs

    def run() -> None:
        try:
            engine_jobs.engine_job_run(job_id=job_id)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_twenty_thousand_requests_run_in_the_background_with_progress_cancel_and_result(site, desktop, held_jobs,
                                                                                       monkeypatch):
    from apps.simulators import engine_jobs
    from apps.simulators.models import EngineJob

    page, watch = desktop
    watch.expect_status(400, r"/api/v1/simulators/engine/$")
    sign_up(page, site.url, "big-runner")
    page.goto(f"{site.url}/lab/engine?num_requests=20000&rate=50&prompt=200&output=50")
    page.get_by_role("button", name="Simulate").click()
    expect(page.get_by_role("alert")).to_contain_text("2000")  # the synchronous cap, named

    # Held at its first progress report: the page shows a bar that moved, then the learner cancels.
    reported, release = threading.Event(), threading.Event()
    real = engine_jobs.run_simulation

    def held(**kwargs):
        report = kwargs["progress"]

        def hold(fraction: float) -> None:
            report(fraction)
            reported.set()
            release.wait(60)

        return real(**{**kwargs, "progress": hold})

    monkeypatch.setattr(engine_jobs, "run_simulation", held)
    page.get_by_role("button", name="Run in the background").click()
    job = page.get_by_test_id("engine-job")
    expect(job).to_contain_text("Simulating 20,000 requests in the background")
    expect(page.get_by_role("button", name="Run in the background")).to_be_disabled()
    worker = work(held_jobs[0])
    assert reported.wait(60)
    expect(job).to_contain_text(re.compile(r"[1-9]\d? % finished"))  # the next poll shows the report
    fraction = page.get_by_role("progressbar", name="Requests finished").evaluate("bar => bar.value")
    assert 0 < fraction < 1, fraction
    shot(page, "engine-background-running")
    job.get_by_role("button", name="Cancel").click()
    expect(job).to_have_text("Background run cancelled.")
    release.set()
    worker.join(60)
    assert EngineJob.objects.get(id=held_jobs[0]).status == "cancelled"

    # Again, to the end: the result is the synchronous endpoint's report.
    monkeypatch.setattr(engine_jobs, "run_simulation", real)
    page.get_by_role("button", name="Run in the background").click()
    expect(job).to_contain_text("Simulating 20,000 requests")
    work(held_jobs[1]).join(120)
    expect(job).to_have_text("Background run of 20,000 requests done.", timeout=20_000)
    result = page.get_by_test_id("engine-result")
    expect(result).to_contain_text("tokens conserved ✓")
    expect(result.locator("tbody th").first).to_have_text("TTFT")
