"""Sweep wall time with 1 vs 2 real Celery workers on Redis (target: 2 workers >= 1.7x faster).

Needs PostgreSQL and Redis (scripts/services.sh). Creates a scratch database (`bench_sweeps`, or the
one named by BENCH_DATABASE_URL), migrates it, runs the same 32-point sweep with 1 and then 2 solo-pool
workers (separate processes, concurrency 1 each), prints both times. Each point simulates 2,000
requests over ~1,000 s of traffic (~0.5-1 s of compute), so a 2-point chunk takes 1-2 s and the timing
measures compute rather than queue round trips. The clock starts once every worker answers a ping.
Run: .venv/bin/python benchmarks/bench_sweeps.py
"""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DB = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_sweeps")
REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
os.environ.update({"DATABASE_URL": DB, "CELERY_BROKER_URL": REDIS, "CELERY_RESULT_BACKEND": REDIS,
                   "DJANGO_SETTINGS_MODULE": "config.settings"})
sys.path.insert(0, str(ROOT))


def prepare_database() -> None:
    import psycopg

    name = DB.rsplit("/", 1)[1]
    with psycopg.connect(DB.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "manage.py", "load_content", "-v0"], cwd=ROOT, check=True)  # the catalog


def run(workers: int) -> float:
    import django

    django.setup()
    from django.conf import settings

    from apps.accounts.services import register_user
    from apps.simulators import sweeps
    from apps.simulators.models import SweepJob
    from config.celery import app

    queue = f"bench-{uuid.uuid4().hex[:6]}"
    settings.SWEEPS_QUEUE = queue
    app.conf.broker_url = REDIS
    env = {**os.environ, "CELERY_TASK_DEFAULT_QUEUE": queue}
    log_dir = os.environ.get("BENCH_WORKER_LOG")  # set to a folder to keep each worker's INFO log (task timings)
    procs = []
    for i in range(workers):
        out = open(Path(log_dir) / f"{queue}-w{i}.log", "w") if log_dir else subprocess.DEVNULL
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-Q", queue, "-n",
             f"b{i}-{queue}@%h", "--without-heartbeat", "--without-mingle", "--without-gossip",
             "-l", "INFO" if log_dir else "WARNING"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
    deadline = time.monotonic() + 60  # worker start-up is not part of the sweep
    while time.monotonic() < deadline:
        replies = app.control.ping(timeout=0.5) or []
        if sum(queue in name for reply in replies for name in reply) >= workers:
            break
    else:
        raise SystemExit("workers did not start")
    user = register_user(f"bench{uuid.uuid4().hex[:6]}", "correct-horse-battery-9")
    request = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "seed": 0, "replicas": 1, "router": "round_robin",
               "workload": {"num_requests": 2000, "arrival_rate_per_s": 2,
                            "prompt_tokens": {"dist": "lognormal", "mean": 512, "sigma": 0.6},
                            "output_tokens": {"dist": "lognormal", "mean": 256, "sigma": 0.6}},
               "slo": {"ttft_s": 1.0, "tpot_s": 0.1},
               "grid": {"max_num_seqs": [8, 16, 32, 64, 128, 256, 384, 512], "tensor_parallel": [1, 2, 4, 8]}}
    start = time.perf_counter()
    job = sweeps.sweep_job_create(user=user, request=request)  # autocommit: on_commit launches at once
    while SweepJob.objects.get(id=job.id).status in ("queued", "running"):
        time.sleep(0.1)
    wall = time.perf_counter() - start
    for p in procs:
        p.kill()
        p.wait()
    return wall


def main() -> None:
    prepare_database()
    one = run(1)
    two = run(2)
    print(f"32-point sweep: 1 worker {one:.2f} s, 2 workers {two:.2f} s, speed-up {one / two:.2f}x "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
