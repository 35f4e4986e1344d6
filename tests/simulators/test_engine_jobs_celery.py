"""A background simulation on a real Celery worker process (real Redis, the test database): sent on commit, claimed,
reported, succeeded with the synchronous endpoint's answer; and one cancelled while the worker runs it."""

import time

import pytest
from api_helpers import load_real_catalog

from tests.celery_workers import one_worker

pytestmark = [pytest.mark.celery_worker, pytest.mark.xdist_group("celery"), pytest.mark.django_db(transaction=True)]
URL = "/api/v1/simulators/engine-jobs/"


@pytest.fixture
def worker(settings, django_db_blocker):
    with django_db_blocker.unblock():
        load_real_catalog()
    with one_worker(settings, django_db_blocker, "engine-jobs") as proc:
        yield proc


def wait(client, url: str, until, seconds: float = 120) -> dict:
    deadline = time.monotonic() + seconds
    while not until(body := client.get(url).json()):
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    return body


def test_a_worker_runs_a_job_to_the_synchronous_answer_and_one_is_cancelled_midway(learner_client, worker):
    small = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "seed": 5,
             "workload": {"num_requests": 200, "arrival_rate_per_s": 20, "prompt_tokens": 300, "output_tokens": 60}}
    job = learner_client.post(URL, small, format="json").json()
    done = wait(learner_client, job["url"], lambda b: b["status"] not in ("queued", "running"))
    assert done["status"] == "succeeded", done
    assert done["result"] == learner_client.post("/api/v1/simulators/engine/", small, format="json").json()

    big = {**small, "workload": {"num_requests": 20_000, "arrival_rate_per_s": 20, "prompt_tokens": 300,
                                 "output_tokens": 200}}
    job = learner_client.post(URL, big, format="json").json()
    running = wait(learner_client, job["url"], lambda b: b["status"] != "queued" and b["progress"] > 0)
    assert running["status"] == "running" and 0 < running["progress"] < 1, running
    learner_client.post(f"{job['url']}cancel/")
    time.sleep(1.0)  # the worker reaches its next report and stops
    after = learner_client.get(job["url"]).json()
    assert after["status"] == "cancelled" and after["result"] is None, after
    assert learner_client.post(URL, small, format="json").status_code == 202  # and the learner's slot is free
