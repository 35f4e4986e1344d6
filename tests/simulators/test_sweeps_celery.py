"""Sweeps on two real Celery worker processes (real Redis, the test database)."""

import os
import signal
import time
import uuid
from pathlib import Path

import pytest
from api_helpers import load_real_catalog

from apps.simulators.models import SweepJob, SweepPoint
from tests.celery_workers import database_url, start_worker

ROOT = Path(__file__).resolve().parents[2]
URL = "/api/v1/simulators/sweeps/"
pytestmark = [pytest.mark.celery_worker, pytest.mark.xdist_group("celery"), pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def worker_pool(django_db_setup, django_db_blocker):
    """Two solo worker processes on a private queue, started once for the module (start-up is most of the cost)."""
    import redis

    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.ConnectionError:
        pytest.fail("Redis is not answering; scripts/services.sh starts it")
    with django_db_blocker.unblock():
        db_url = database_url()
    queue = f"sweeps-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": db_url, "CELERY_BROKER_URL": url, "CELERY_RESULT_BACKEND": url,
           "CELERY_TASK_DEFAULT_QUEUE": queue, "SWEEPS_QUEUE": queue, "CELERY_TASK_ALWAYS_EAGER": "false"}
    pool = {"url": url, "queue": queue, "env": env, "procs": [start_worker(env, queue, i) for i in range(2)]}
    yield pool
    for p in pool["procs"]:  # the queue is private to this module: unfinished chunks can be dropped
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)


@pytest.fixture(autouse=True)
def catalog(transactional_db):
    return load_real_catalog()  # committed: the workers read it from the test database


@pytest.fixture
def workers(settings, worker_pool):
    from config.celery import app

    procs = worker_pool["procs"]
    for i, p in enumerate(procs):  # a test killed one: start a fresh one in its place
        if p.poll() is not None:
            procs[i] = start_worker(worker_pool["env"], worker_pool["queue"], i)
    url = worker_pool["url"]
    settings.SWEEPS_QUEUE = worker_pool["queue"]
    settings.CELERY_BROKER_URL = url
    settings.CELERY_TASK_ALWAYS_EAGER = False
    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url, app.conf.task_always_eager = url, False
    yield procs
    app.conf.broker_url, app.conf.task_always_eager = old


def body(num_requests: int, seqs: list[int], mode: str = "two_stage") -> dict:
    """Tests of the chunk machinery (cancel, a killed worker, fairness) simulate every point: their timing needs the
    whole grid's work, not the screen's candidates."""
    return {"model": "llama-3.1-8b", "gpu": "h100-sxm", "mode": mode,
            "workload": {"num_requests": num_requests, "arrival_rate_per_s": 20, "prompt_tokens": 400,
                         "output_tokens": 60},
            "slo": {"ttft_s": 1.0, "tpot_s": 0.1},
            "grid": {"max_num_seqs": seqs, "tensor_parallel": [1, 2]}}


def wait_for(client, job_id, done, timeout=40.0) -> dict:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        data = client.get(f"{URL}{job_id}/").json()
        if done(data):
            return data
        time.sleep(0.2)
    raise AssertionError(f"sweep {job_id} still {data['status']} after {timeout} s")


def assert_points_unique(job_id) -> int:
    indices = list(SweepPoint.objects.filter(job_id=job_id).values_list("index", flat=True))
    assert len(indices) == len(set(indices))
    return len(indices)


def test_sweep_completes_on_two_workers_with_each_point_once(learner_client, workers):
    r = learner_client.post(URL, body(40, [4, 8, 16, 32, 64, 128]), format="json")
    assert r.status_code == 202
    data = wait_for(learner_client, r.json()["id"], lambda d: d["status"] not in ("queued", "running"))
    assert data["status"] == "succeeded", data["error"]
    assert assert_points_unique(data["id"]) == data["total_points"] == 12 == data["done_points"]
    assert data["recommendation"] and data["pareto"]


def test_a_two_stage_sweep_simulates_its_candidates_on_two_workers(learner_client, workers):
    grid = {"gpu": ["h100-sxm", "a100-80gb", "l40s"], "tensor_parallel": [1, 2, 4], "max_num_seqs": [8, 32, 128, 512]}
    r = learner_client.post(URL, {**body(60, [8]), "grid": grid}, format="json")
    assert r.status_code == 202, r.json()
    data = wait_for(learner_client, r.json()["id"], lambda d: d["status"] not in ("queued", "running"))
    assert data["status"] == "succeeded", data["error"]
    assert data["screen"]["grid_points"] == 36
    assert assert_points_unique(data["id"]) == data["total_points"] == data["screen"]["simulated"] == 16
    assert data["pareto"] and all("screen" in p and p["engine"]["meets_slo"] for p in data["pareto"])
    assert data["recommendation"]["index"] == data["pareto"][0]["index"]


def test_cancel_stops_the_remaining_chunks(learner_client, workers, settings):
    # Small chunks (about 4 of the 60 points each): with the default two-second chunks this grid is three chunks, and
    # on a fast machine the last one could finish between the first progress seen and the cancel.
    settings.SWEEP_CHUNK_TARGET_S = 0.2
    r = learner_client.post(URL, body(200, list(range(2, 32)), "exhaustive"), format="json")
    job_id = r.json()["id"]
    assert SweepJob.objects.get(id=job_id).total_chunks >= 10
    wait_for(learner_client, job_id, lambda d: d["done_points"] > 0)
    assert learner_client.post(f"{URL}{job_id}/cancel/").json()["status"] == "cancelled"
    time.sleep(2.0)
    stored = assert_points_unique(job_id)
    time.sleep(1.5)
    assert assert_points_unique(job_id) == stored < 60
    assert SweepJob.objects.get(id=job_id).status == "cancelled"


def test_killed_worker_ends_in_a_final_state(learner_client, workers, settings):
    """The chunk the killed worker held is sent again once the job stalls, so the sweep still succeeds."""
    r = learner_client.post(URL, body(150, list(range(2, 14)), "exhaustive"), format="json")
    job_id = r.json()["id"]
    wait_for(learner_client, job_id, lambda d: d["done_points"] > 0)
    workers[0].send_signal(signal.SIGKILL)
    workers[0].wait(timeout=10)
    settings.SWEEP_WATCHDOG_TIMEOUT_S = 3
    data = wait_for(learner_client, job_id, lambda d: d["status"] not in ("queued", "running"), timeout=45)
    assert data["status"] == "succeeded", data["error"]
    assert assert_points_unique(job_id) == data["done_points"] == data["total_points"]


def test_a_second_users_small_sweep_runs_while_a_large_one_does(learner_client, make_user, workers):
    """User A's 400-point sweep is running on both workers; user B's 2-point sweep completes within 30 s."""
    from rest_framework.test import APIClient

    heavy = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "mode": "exhaustive",
             "workload": {"num_requests": 1000, "arrival_rate_per_s": 20, "prompt_tokens": 1000, "output_tokens": 200},
             "grid": {"max_num_seqs": list(range(8, 108)), "tensor_parallel": [1, 2],
                      "max_num_batched_tokens": [4096, 8192]}}
    r = learner_client.post(URL, heavy, format="json")
    assert r.status_code == 202, r.json()
    big = r.json()["id"]
    wait_for(learner_client, big, lambda d: d["done_points"] > 0, timeout=60)
    other = APIClient()
    other.force_authenticate(make_user())
    start = time.monotonic()
    r = other.post(URL, body(40, [8]), format="json")
    assert r.status_code == 202, r.json()
    small = wait_for(other, r.json()["id"], lambda d: d["status"] not in ("queued", "running"), timeout=30)
    waited = time.monotonic() - start
    print(f"user B's 2-point sweep finished in {waited:.1f} s")
    assert small["status"] == "succeeded", small["error"]
    assert small["total_points"] == 2
    a = learner_client.get(f"{URL}{big}/").json()
    assert a["status"] == "running" and a["done_points"] < a["total_points"]  # B did not wait for A's sweep
    learner_client.post(f"{URL}{big}/cancel/")


def test_a_sweep_whose_messages_vanished_is_sent_again(learner_client, workers, settings, monkeypatch):
    """The first chunks never reach the broker (as when Redis restarts without persistence): once the job has
    stalled for the watchdog timeout they are sent again and the sweep completes, each point once."""
    from apps.simulators import sweeps

    real_send, lost = sweeps._send, []
    monkeypatch.setattr(sweeps, "_send", lambda chunks: lost.extend(chunks) or len(chunks))
    r = learner_client.post(URL, body(40, [4, 8, 16, 32]), format="json")
    job_id = r.json()["id"]
    assert [chunk for _, chunk in lost] == [0]  # 8 light points: one chunk
    monkeypatch.setattr(sweeps, "_send", real_send)
    time.sleep(1.0)
    assert SweepJob.objects.get(id=job_id).done_points == 0  # nothing is coming
    settings.SWEEP_WATCHDOG_TIMEOUT_S = 2
    data = wait_for(learner_client, job_id, lambda d: d["status"] not in ("queued", "running"), timeout=40)
    assert data["status"] == "succeeded", data["error"]
    assert assert_points_unique(job_id) == data["total_points"] == 8
