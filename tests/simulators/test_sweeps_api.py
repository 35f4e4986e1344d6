"""Sweep jobs: validation, limits, ownership, chunk bookkeeping, Pareto and the watchdog."""

from datetime import timedelta

import pytest
from api_helpers import load_real_catalog
from django.utils import timezone

from apps.simulators import sweeps
from apps.simulators.engine.grid import pareto_frontier
from apps.simulators.models import SweepJob, SweepPoint, SweepStatus
from apps.simulators.simulation import point_compute

pytestmark = pytest.mark.django_db
URL = "/api/v1/simulators/sweeps/"


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


@pytest.fixture
def eager(settings):
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    old = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = old


def sweep_body(**over):
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "seed": 2,
            "workload": {"num_requests": 40, "arrival_rate_per_s": 10, "prompt_tokens": 300, "output_tokens": 40},
            "slo": {"ttft_s": 0.5, "tpot_s": 0.05},
            "grid": {"max_num_seqs": [8, 64], "tensor_parallel": [1, 2]}}
    return {**base, **over}


def test_sweep_runs_to_success_with_pareto_and_recommendation(learner_client, eager,
                                                              django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        r = learner_client.post(URL, sweep_body(), format="json")
    assert r.status_code == 202
    assert r.json()["total_points"] == 4
    job = learner_client.get(f"{URL}{r.json()['id']}/").json()
    assert job["status"] == "succeeded"
    assert job["progress"] == 1.0
    assert [p["index"] for p in job["results"]] == [0, 1, 2, 3]
    assert job["pareto"]
    rec = job["recommendation"]
    assert rec["command"].startswith("vllm serve meta-llama/")
    assert f"--tensor-parallel-size {rec['params']['tensor_parallel']}" in rec["command"]
    # The cheapest SLO-meeting point is the recommendation and the first frontier point.
    good = [p for p in job["results"] if p["meets_slo"]]
    cheapest = min(good, key=lambda p: p["metrics"]["usd_per_million_tokens"])
    assert rec["index"] == cheapest["index"] == job["pareto"][0]["index"]


@pytest.mark.parametrize(("grid", "field"), [
    ({"gpu": ["h100-sxm", "tpu-v9"]}, "grid.gpu"),
    ({"tensor_parallel": [3]}, "grid.tensor_parallel"),
    ({"replicas": [0]}, "grid.replicas"),
    ({"router": ["random"]}, "grid.router"),
    ({"chunked_prefill": ["yes"]}, "grid.chunked_prefill"),
    ({"temperature": [1]}, "grid.temperature"),
    ({"max_num_seqs": list(range(1, 101)), "max_num_batched_tokens": list(range(100, 200)),
      "chunked_prefill": [True, False]}, "grid"),  # 20,000 points
    ({}, "grid"),
])
def test_bad_grid_names_the_field(learner_client, grid, field):
    r = learner_client.post(URL, sweep_body(grid=grid), format="json")
    assert r.status_code == 400
    assert field in r.json()["fields"], r.json()


def test_anonymous_cannot_start_a_sweep(api_client):
    assert api_client.post(URL, sweep_body(), format="json").status_code in (401, 403)


def test_fourth_running_sweep_is_refused(learner_client, monkeypatch):
    monkeypatch.setattr(sweeps, "sweep_launch", lambda **kw: None)
    for _ in range(3):
        assert learner_client.post(URL, sweep_body(), format="json").status_code == 202
    r = learner_client.post(URL, sweep_body(), format="json")
    assert r.status_code == 429
    assert "3 sweeps" in r.json()["detail"]


def test_broker_down_is_503(learner_client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    r = learner_client.post(URL, sweep_body(), format="json")
    assert r.status_code == 503


def make_job(user, **kw):
    return SweepJob.objects.create(user=user, request=sweep_body(), total_points=4, total_chunks=4, **kw)


def test_other_users_job_is_404(learner_client, make_user):
    job = make_job(make_user())
    assert learner_client.get(f"{URL}{job.id}/").status_code == 404
    assert learner_client.post(f"{URL}{job.id}/cancel/").status_code == 404
    assert learner_client.get(URL).json()["count"] == 0


def test_list_shows_own_jobs_in_constant_queries(learner_client, django_assert_max_num_queries):
    for _ in range(5):
        make_job(learner_client.user, status=SweepStatus.SUCCEEDED)
    with django_assert_max_num_queries(8):
        r = learner_client.get(URL)
    assert r.json()["count"] == 5


def test_cancel_stops_remaining_chunks(learner_client):
    job = make_job(learner_client.user)
    r = learner_client.post(f"{URL}{job.id}/cancel/")
    assert r.json()["status"] == "cancelled"
    assert sweeps.sweep_chunk_run(job_id=job.id, chunk=0) == 0
    assert not SweepPoint.objects.filter(job=job).exists()


def test_a_redelivered_chunk_is_stored_and_counted_once(learner_client):
    job = make_job(learner_client.user)  # 4 points, one per chunk
    assert sweeps.sweep_chunk_run(job_id=job.id, chunk=0) == 1
    assert sweeps.sweep_chunk_run(job_id=job.id, chunk=0) == 0  # the redelivered copy stores nothing
    job.refresh_from_db()
    assert (job.done_points, job.done_chunks, job.status) == (1, 1, SweepStatus.RUNNING)
    assert [sweeps.sweep_chunk_run(job_id=job.id, chunk=c) for c in (1, 2, 3)] == [1, 1, 1]
    job.refresh_from_db()
    assert (job.done_points, job.done_chunks, job.status) == (4, 4, SweepStatus.SUCCEEDED)
    assert SweepPoint.objects.filter(job=job).count() == 4


def test_watchdog_fails_a_silent_job(learner_client):
    job = make_job(learner_client.user, status=SweepStatus.RUNNING)
    SweepJob.objects.filter(id=job.id).update(heartbeat_at=timezone.now() - timedelta(seconds=700))
    data = learner_client.get(f"{URL}{job.id}/").json()
    assert data["status"] == "failed"
    assert "No progress" in data["error"]


def test_watchdog_leaves_a_live_job_alone(learner_client):
    job = make_job(learner_client.user, status=SweepStatus.RUNNING, heartbeat_at=timezone.now())
    assert sweeps.sweep_watchdog(now=timezone.now() + timedelta(seconds=10), timeout_s=60) == 0
    job.refresh_from_db()
    assert job.status == SweepStatus.RUNNING


def test_pareto_frontier_drops_dominated_points():
    def pt(i, cost, ttft):
        return {"index": i, "metrics": {"usd_per_million_tokens": cost, "ttft_s": {"p99": ttft}}}

    points = [pt(0, 1.0, 0.9), pt(1, 2.0, 0.5), pt(2, 2.5, 0.6), pt(3, 3.0, 0.1), pt(4, 1.0, 1.2)]
    assert [p["index"] for p in pareto_frontier(points)] == [0, 1, 3]


def test_infeasible_point_is_stored_as_not_meeting_slo(learner_client):
    metrics, meets = point_compute(user=learner_client.user, request=sweep_body(model="llama-3.1-405b"),
                                   grid_values={"tensor_parallel": 1})
    assert metrics["feasible"] is False and "gpu" in metrics["error"]
    assert meets is False


def test_a_sweep_over_a_too_large_workload_is_refused(learner_client):
    wl = {"num_requests": 2000, "arrival_rate_per_s": 10, "prompt_tokens": 1950, "output_tokens": 100}
    r = learner_client.post(URL, sweep_body(workload=wl), format="json")
    assert r.status_code == 400
    assert "4,100,000 tokens" in r.json()["fields"]["workload"][0]
    assert not SweepJob.objects.exists()
