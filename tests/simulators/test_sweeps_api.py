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
    # The cheapest SLO-meeting point is the recommendation and the first frontier point; between equal costs the
    # lower p99 TTFT, as the frontier orders them.
    good = [p for p in job["results"] if p["meets_slo"]]
    cheapest = min(good, key=lambda p: (p["metrics"]["usd_per_million_tokens"], p["metrics"]["ttft_s"]["p99"]))
    assert rec["index"] == cheapest["index"] == job["pareto"][0]["index"]


def test_results_come_a_page_at_a_time_and_the_status_alone_is_cheap(learner_client, eager,
                                                                     django_capture_on_commit_callbacks,
                                                                     django_assert_max_num_queries):
    with django_capture_on_commit_callbacks(execute=True):
        job_id = learner_client.post(URL, sweep_body(), format="json").json()["id"]
    # 4 points, pages of 3: indexes 0-2, then 3.
    first = learner_client.get(f"{URL}{job_id}/", {"page_size": 3}).json()
    assert [p["index"] for p in first["results"]] == [0, 1, 2]
    assert (first["results_count"], first["page"], first["next_page"]) == (4, 1, 2)
    last = learner_client.get(f"{URL}{job_id}/", {"page_size": 3, "page": 2}).json()
    assert [p["index"] for p in last["results"]] == [3] and last["next_page"] is None
    assert first["pareto"] == last["pareto"] and first["recommendation"] == last["recommendation"]
    beyond = learner_client.get(f"{URL}{job_id}/", {"page_size": 3, "page": 3}).json()
    assert beyond["results"] == [] and beyond["results_count"] == 4
    with django_assert_max_num_queries(6):  # session, user, watchdog's look at the job, the job: no points
        status = learner_client.get(f"{URL}{job_id}/status/")
    assert status.json()["status"] == "succeeded" and status.json()["done_points"] == 4
    assert "results" not in status.json() and "request" not in status.json()


@pytest.mark.parametrize(("query", "field"), [
    ({"page": 0}, "page"), ({"page": "two"}, "page"), ({"page_size": 0}, "page_size"),
    ({"page_size": 1001}, "page_size"), ({"sort": "index"}, "sort"),
])
def test_bad_results_page_names_the_field(learner_client, query, field):
    job = SweepJob.objects.create(user=learner_client.user, request=sweep_body(), total_points=4, total_chunks=1)
    r = learner_client.get(f"{URL}{job.id}/", query)
    assert r.status_code == 400 and field in r.json()["fields"], r.json()


def test_a_strangers_sweep_status_is_not_found(learner_client, django_user_model):
    stranger = django_user_model.objects.create_user("stranger-sweeps", password="x" * 12)
    job = SweepJob.objects.create(user=stranger, request=sweep_body(), total_points=4, total_chunks=1)
    assert learner_client.get(f"{URL}{job.id}/status/").status_code == 404


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


@pytest.fixture
def no_send(monkeypatch):
    """Chunks are recorded instead of sent: (job id, chunk) in the order they would go out."""
    sent = []
    monkeypatch.setattr(sweeps, "_send", lambda chunks: sent.extend(chunks) or len(chunks))
    # The test's transaction never commits: run what waits for the commit at once.
    monkeypatch.setattr(sweeps.transaction, "on_commit", lambda func, using=None, robust=False: func())
    return sent


def test_fourth_running_sweep_is_refused(learner_client, no_send):
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
    return SweepJob.objects.create(user=user, request=sweep_body(), total_points=4, total_chunks=4, chunk_points=1,
                                   **kw)


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


def test_watchdog_resends_the_lost_chunks_of_a_silent_job_then_fails_it(learner_client, no_send, settings):
    settings.SWEEP_MAX_REQUEUES = 2
    job = make_job(learner_client.user, status=SweepStatus.RUNNING, dispatched_chunks=3)
    assert sweeps.sweep_chunk_run(job_id=job.id, chunk=1) == 1  # chunk 1 is stored; 0 and 2 were lost
    no_send.clear()
    for attempt in (1, 2):
        SweepJob.objects.filter(id=job.id).update(heartbeat_at=timezone.now() - timedelta(seconds=61))
        data = learner_client.get(f"{URL}{job.id}/").json()  # reading the job runs the watchdog too
        assert data["status"] == "running"
        assert no_send == [(job.id, 0), (job.id, 2)] * attempt  # sent again; chunk 3 still waits for the window
        assert SweepJob.objects.get(id=job.id).requeues == attempt
    SweepJob.objects.filter(id=job.id).update(heartbeat_at=timezone.now() - timedelta(seconds=61))
    data = learner_client.get(f"{URL}{job.id}/").json()
    assert data["status"] == "failed"
    assert "No progress for more than 180 s" in data["error"] and "sent again 2 times" in data["error"]
    assert data["done_points"] == 1  # kept


def test_progress_resets_the_resend_count(learner_client, no_send):
    job = make_job(learner_client.user, status=SweepStatus.RUNNING, dispatched_chunks=2, requeues=2)
    assert sweeps.sweep_chunk_run(job_id=job.id, chunk=0) == 1
    assert SweepJob.objects.get(id=job.id).requeues == 0


def test_watchdog_leaves_a_job_waiting_for_its_turn_alone(learner_client, no_send):
    """A user's second sweep has nothing out while their first one fills the window: it is not stalled."""
    first = make_job(learner_client.user, status=SweepStatus.RUNNING, dispatched_chunks=2, heartbeat_at=timezone.now())
    second = make_job(learner_client.user)
    SweepJob.objects.filter(id=second.id).update(created_at=timezone.now() - timedelta(hours=1))
    SweepJob.objects.filter(id=first.id).update(created_at=timezone.now() - timedelta(hours=2))
    assert sweeps.sweep_watchdog(now=timezone.now()) == 0
    assert no_send == []
    assert SweepJob.objects.get(id=second.id).status == SweepStatus.QUEUED


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


def test_chunks_go_out_a_window_at_a_time_per_user_and_interleave(learner_client, make_user, settings, no_send):
    """User A's three sweeps hold at most SWEEP_USER_WINDOW chunks in the queue, oldest sweep first; user B's
    sweep goes out at once, and each finished chunk of A's sends A's next one."""
    settings.SWEEP_USER_WINDOW = 2
    from rest_framework.test import APIClient

    a1 = make_job(learner_client.user)
    a2 = make_job(learner_client.user)
    assert sweeps.sweep_dispatch(user_id=learner_client.user.id) == 2
    assert no_send == [(a1.id, 0), (a1.id, 1)]
    other = APIClient()
    other.force_authenticate(make_user())
    r = other.post(URL, sweep_body(grid={"max_num_seqs": [8, 64]}), format="json")
    b = r.json()["id"]
    assert [str(j) for j, _ in no_send[2:]] == [b]  # one chunk for 2 points; B does not wait for A's sweeps
    assert sweeps.sweep_chunk_run(job_id=a1.id, chunk=0) == 1
    sweeps.sweep_dispatch_for_job(job_id=a1.id)
    assert no_send[3:] == [(a1.id, 2)]
    for chunk in (1, 2):
        sweeps.sweep_chunk_run(job_id=a1.id, chunk=chunk)
        sweeps.sweep_dispatch_for_job(job_id=a1.id)
    assert no_send[4:] == [(a1.id, 3), (a2.id, 0)]  # A's next sweep starts as the first one's last chunk runs


def test_cancelling_frees_the_window_for_the_next_sweep(learner_client, no_send):
    a1 = make_job(learner_client.user)
    a2 = make_job(learner_client.user)
    sweeps.sweep_dispatch(user_id=learner_client.user.id)
    learner_client.post(f"{URL}{a1.id}/cancel/")
    assert no_send[-2:] == [(a2.id, 0), (a2.id, 1)]


def test_cost_estimate_counts_points_requests_and_step_bound():
    body = sweep_body(grid={"max_num_seqs": [8, 64], "tensor_parallel": [1, 2]})
    cost = sweeps.sweep_cost(body)
    # 40 requests × 40 output tokens: at least max(40, ceil(1600 / seqs), ceil(40 × 339 / 8192)) steps a point
    assert (cost["points"], cost["requests"], cost["steps"]) == (4, 40, 2 * 200 + 2 * 40)
    assert cost["cpu_s"] == pytest.approx(4 * (sweeps.POINT_S + 40 * sweeps.REQUEST_S) + 480 * sweeps.STEP_S)


HEAVY = {"num_requests": 2000, "arrival_rate_per_s": 10, "prompt_tokens": 1000, "output_tokens": 1000}


def test_a_sweep_over_the_user_budget_is_a_400_naming_the_limit(learner_client, settings, no_send):
    settings.SWEEP_USER_BUDGET_CPU_S = 600
    grid = {"max_num_seqs": list(range(1, 101)), "tensor_parallel": [1, 2, 4, 8]}  # 400 points × ≥ 2,000,000 steps
    r = learner_client.post(URL, sweep_body(workload=HEAVY, grid=grid, mode="exhaustive"), format="json")
    assert r.status_code == 400, r.json()
    detail = r.json()["detail"]
    assert "SWEEP_USER_BUDGET_CPU_S" in detail and "600 s per user" in detail and "400 points" in detail
    assert "grid" in r.json()["fields"]
    assert not SweepJob.objects.exists() and no_send == []


def test_sweeps_past_the_budget_together_are_a_429(learner_client, settings, no_send):
    body = sweep_body(workload=HEAVY, grid={"max_num_seqs": [1, 2, 4, 8]})
    cost = sweeps.sweep_cost(body)["cpu_s"]
    settings.SWEEP_USER_BUDGET_CPU_S = cost * 1.5
    assert learner_client.post(URL, body, format="json").status_code == 202
    r = learner_client.post(URL, body, format="json")
    assert r.status_code == 429
    assert "SWEEP_USER_BUDGET_CPU_S" in r.json()["detail"]
    # Progress frees the budget: with half the first sweep done the second one fits.
    SweepJob.objects.update(done_points=2)
    assert learner_client.post(URL, body, format="json").status_code == 202


def test_a_full_backlog_is_a_503_with_retry_after(learner_client, make_user, settings, no_send):
    settings.SWEEP_BACKLOG_MAX_CPU_S = 100
    settings.SWEEP_WORKERS = 2
    SweepJob.objects.create(user=make_user(), request=sweep_body(), total_points=10, total_chunks=10, chunk_points=1,
                            cost_estimate_s=400, done_points=5)  # 200 s left
    r = learner_client.post(URL, sweep_body(), format="json")
    assert r.status_code == 503
    assert r.json()["error"] == "backlog_full"
    assert "SWEEP_BACKLOG_MAX_CPU_S" in r.json()["detail"]
    assert 50 <= int(r["Retry-After"]) <= 60  # (200 + this sweep − 100) s of work over 2 workers
    SweepJob.objects.update(status=SweepStatus.SUCCEEDED)
    assert learner_client.post(URL, sweep_body(), format="json").status_code == 202


def test_chunks_are_sized_for_a_few_seconds_of_work(learner_client, no_send):
    light = learner_client.post(URL, sweep_body(grid={"max_num_seqs": list(range(1, 101))}), format="json").json()
    heavy = learner_client.post(URL, sweep_body(workload=HEAVY, grid={"max_num_seqs": [1, 2, 4, 8]}),
                                format="json").json()
    assert SweepJob.objects.get(id=light["id"]).chunk_points == 25
    assert SweepJob.objects.get(id=heavy["id"]).chunk_points == 1


def test_an_eager_sweep_of_many_chunks_runs_them_all_in_turn(learner_client, eager, settings,
                                                             django_capture_on_commit_callbacks):
    settings.SWEEP_CHUNK_TARGET_S = 0.001  # one point per chunk: 16 chunks, each sending the next
    body = sweep_body(grid={"max_num_seqs": [2, 4, 8, 16, 32, 64, 128, 256], "tensor_parallel": [1, 2]})
    with django_capture_on_commit_callbacks(execute=True):
        r = learner_client.post(URL, body, format="json")
    job = SweepJob.objects.get(id=r.json()["id"])
    assert (job.status, job.total_chunks, job.done_points, job.dispatched_chunks) == (SweepStatus.SUCCEEDED, 16, 16, 16)
