"""Engine and cluster runs as background jobs: the request validates and answers 202 with the job; the job (run here
by calling the worker's function, as the task does) stores what the synchronous endpoint would answer, up to
20,000 requests; progress, cancelling, one job per learner, and only the owner sees a job."""

import pytest
from api_helpers import load_real_catalog

from apps.simulators import engine_jobs
from apps.simulators.models import EngineJob

pytestmark = pytest.mark.django_db
URL = "/api/v1/simulators/engine-jobs/"
ENGINE = "/api/v1/simulators/engine/"
CLUSTER = "/api/v1/simulators/cluster/"


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def body(**over):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "seed": 3,
            "workload": {"num_requests": 100, "arrival_rate_per_s": 20,
                         "prompt_tokens": {"dist": "uniform", "low": 100, "high": 600},
                         "output_tokens": {"dist": "lognormal", "mean": 80, "sigma": 0.5}}}
    return {**base, **over}


def run(client, job_id: str) -> dict:
    engine_jobs.engine_job_run(job_id=job_id)
    return client.get(f"{URL}{job_id}/").json()


@pytest.mark.parametrize(("endpoint", "extra"), [(ENGINE, {}), (CLUSTER, {"replicas": 2, "router": "least_outstanding"})])
def test_a_job_stores_exactly_what_the_synchronous_endpoint_answers(learner_client, endpoint, extra):
    params = body(**extra)
    answered = learner_client.post(endpoint, params, format="json").json()
    response = learner_client.post(URL, params, format="json")
    assert response.status_code == 202, response.json()
    job = response.json()
    assert job["status"] == "queued" and job["progress"] == 0 and job["result"] is None and job["num_requests"] == 100
    assert response["Location"] == job["url"] == f"{URL}{job['id']}/"
    done = run(learner_client, job["id"])
    assert done["status"] == "succeeded" and done["progress"] == 1 and done["error"] is None
    assert done["result"] == answered
    assert learner_client.get(URL).json()[0]["id"] == job["id"]


def test_twenty_thousand_requests_run_as_a_job_with_progress(learner_client, monkeypatch):
    params = body(workload={"num_requests": 20_000, "arrival_rate_per_s": 50, "prompt_tokens": 200,
                            "output_tokens": 50})
    refused = learner_client.post(ENGINE, params, format="json")
    assert refused.status_code == 400 and "workload.num_requests" in refused.json()["fields"]
    reports: list[float] = []
    real = engine_jobs.run_simulation

    def watched(**kwargs):
        report = kwargs["progress"]
        return real(**{**kwargs, "progress": lambda fraction: (reports.append(fraction), report(fraction))})

    monkeypatch.setattr(engine_jobs, "run_simulation", watched)
    job = learner_client.post(URL, params, format="json").json()
    done = run(learner_client, job["id"])
    assert done["status"] == "succeeded" and done["result"]["completed"] == 20_000, done["error"]
    # Reported every 20,000 engine steps as the share of requests finished: rising, below 1 until the end.
    assert len(reports) >= 2 and reports == sorted(reports) and 0 < reports[0] < reports[-1] < 1


def test_cancelling_a_queued_job_means_it_never_runs(learner_client):
    job = learner_client.post(URL, body(), format="json").json()
    cancelled = learner_client.post(f"{job['url']}cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    after = run(learner_client, job["id"])
    assert after["status"] == "cancelled" and after["result"] is None
    assert learner_client.post(URL, body(), format="json").status_code == 202  # the learner's slot is free again


def test_cancelling_a_running_job_stops_it_at_its_next_report(learner_client, monkeypatch):
    real = engine_jobs.run_simulation

    def cancel_midway(**kwargs):
        report = kwargs["progress"]

        def cancel_then_report(fraction):
            learner_client.post(f"{URL}{job['id']}/cancel/")
            report(fraction)

        return real(**{**kwargs, "progress": cancel_then_report})

    monkeypatch.setattr(engine_jobs, "run_simulation", cancel_midway)
    job = learner_client.post(URL, body(workload={"num_requests": 20_000, "arrival_rate_per_s": 50,
                                                  "prompt_tokens": 200, "output_tokens": 50}), format="json").json()
    after = run(learner_client, job["id"])
    assert after["status"] == "cancelled" and after["result"] is None and after["progress"] < 1


def test_a_second_job_while_one_is_queued_is_a_conflict(learner_client):
    first = learner_client.post(URL, body(), format="json").json()
    second = learner_client.post(URL, body(), format="json")
    assert second.status_code == 409 and first["id"] in second.json()["detail"]
    run(learner_client, first["id"])
    assert learner_client.post(URL, body(), format="json").status_code == 202


def test_a_workload_that_cannot_run_fails_the_job_naming_the_field_as_the_endpoint_does(learner_client):
    params = body(model="llama-3.1-405b")  # 810 GB of weights on one 80 GB GPU
    assert "gpu" in learner_client.post(ENGINE, params, format="json").json()["fields"]
    done = run(learner_client, learner_client.post(URL, params, format="json").json()["id"])
    assert done["status"] == "failed" and "gpu" in done["error"]["fields"] and done["result"] is None


@pytest.mark.parametrize(("change", "field"), [
    ({"workload": {"num_requests": 20_001}}, "workload.num_requests"),
    ({"workload": {"trace": [[0, 10]]}}, "workload.trace.0"),
    ({"replicas": 17}, "replicas"),
    ({"long_prefill_token_threshold": -5}, "long_prefill_token_threshold"),
    ({"max_num_seqs": "many"}, "max_num_seqs"),
    ({"priority": "high"}, "priority"),  # an unknown field is refused, not ignored
])
def test_bad_input_is_a_400_naming_the_field_and_makes_no_job(learner_client, change, field):
    response = learner_client.post(URL, body(**change), format="json")
    assert response.status_code == 400 and field in response.json()["fields"], response.json()
    assert not EngineJob.objects.exists()


def test_jobs_are_for_signed_in_learners_and_only_their_owner_sees_one(api_client, learner_client, make_user):
    assert api_client.post(URL, body(), format="json").status_code in (401, 403)
    assert api_client.get(URL).status_code in (401, 403)
    job = learner_client.post(URL, body(), format="json").json()
    from rest_framework.test import APIClient

    other = APIClient()
    other.force_authenticate(make_user("someone-else"))
    assert other.get(job["url"]).status_code == 404
    assert other.post(f"{job['url']}cancel/").status_code == 404
    assert other.get(URL).json() == []
    assert learner_client.get(f"{URL}00000000-0000-0000-0000-000000000000/").status_code == 404
