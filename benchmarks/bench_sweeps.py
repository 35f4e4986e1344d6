"""A 10,000-point two-stage sweep to its Pareto frontier and `vllm serve` recommendation, on 1 and then 2 real
Celery workers on Redis (target: under 60 s on 2 workers).

Needs PostgreSQL and Redis (scripts/services.sh). Creates a scratch database (`bench_sweeps`, or the
one named by BENCH_DATABASE_URL), migrates it, loads the catalog, and runs the same sweep with 1 and then 2 solo-pool
workers (separate processes, concurrency 1 each). The grid: 5 GPUs × TP 1/2/4/8 × 1-6 replicas × 10 max_num_seqs ×
5 max_num_batched_tokens × chunked prefill on/off = 10,000 points of Llama-3.1-8B serving 1,000 requests
(lognormal 512-token prompts, 256-token outputs, 10 requests/s) under p99 TTFT 1 s and TPOT 50 ms. The clock
starts once every worker answers a ping and runs from the POST (which screens the grid and picks the candidates)
until the job has succeeded with its frontier and recommendation. Printed per run: the whole time, the screen's
part, the points simulated, the frontier and the recommendation, and the load average (the figures depend on what
else the machine runs).
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
    import django

    django.setup()
    from apps.core.content import FIXTURES_DIR, LoadContext
    from apps.simulators.content import load_catalog

    ctx = LoadContext(root=FIXTURES_DIR)  # the catalog only: the sweep needs no other content
    load_catalog(ctx)
    if ctx.errors:
        raise SystemExit(f"catalog: {ctx.errors}")


GRID = {"gpu": ["l40s", "a100-80gb", "h100-sxm", "h200", "b200"], "tensor_parallel": [1, 2, 4, 8],
        "replicas": [1, 2, 3, 4, 6], "max_num_seqs": [8, 16, 32, 48, 64, 96, 128, 192, 256, 512],
        "max_num_batched_tokens": [1024, 2048, 4096, 8192, 16384], "chunked_prefill": [True, False]}
REQUEST = {"model": "llama-3.1-8b", "seed": 0, "router": "round_robin",
           "workload": {"num_requests": 1000, "arrival_rate_per_s": 10,
                        "prompt_tokens": {"dist": "lognormal", "mean": 512, "sigma": 0.6},
                        "output_tokens": {"dist": "lognormal", "mean": 256, "sigma": 0.6}},
           "slo": {"ttft_s": 1.0, "tpot_s": 0.05}, "grid": GRID}
TARGET_S = 60.0


def run(workers: int) -> dict:
    import django

    django.setup()
    from django.conf import settings

    from apps.accounts.services import register_user
    from apps.simulators import sweeps
    from apps.simulators.api.inputs import SweepInput
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
    idle_cpu = [_cpu_s(p.pid) for p in procs]  # start-up is not part of the sweep
    start = time.perf_counter()
    data = SweepInput(data=REQUEST, context={"request": type("R", (), {"user": user})()})
    data.is_valid(raise_exception=True)  # as the API does: the grid checked value by value
    job = sweeps.sweep_job_create(user=user, request=dict(data.validated_data))  # autocommit: sent at once
    accepted = time.perf_counter() - start
    while SweepJob.objects.get(id=job.id).status in ("queued", "running"):
        time.sleep(0.1)
    wall = time.perf_counter() - start
    cpu = sum(_cpu_s(p.pid) for p in procs) - sum(idle_cpu)
    for p in procs:
        p.kill()
        p.wait()
    job = SweepJob.objects.get(id=job.id)
    if job.status != "succeeded":
        raise SystemExit(f"sweep {job.status}: {job.error}")
    return {"workers": workers, "wall": wall, "cpu": cpu, "accepted": accepted, "screen": job.screen, "pareto": job.pareto,
            "recommendation": job.recommendation, "load": os.getloadavg()[0]}


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def report(r: dict) -> None:
    s, rec = r["screen"], r["recommendation"]
    agree = s["agreement"]
    print(f"{r['workers']} worker{'s' if r['workers'] > 1 else ''}: {r['wall']:.1f} s to the frontier and "
          f"recommendation ({'PASS' if r['wall'] < TARGET_S else 'FAIL'}: target < {TARGET_S:.0f} s); accepted in "
          f"{r['accepted']:.2f} s of which the screen {s['seconds']:.2f} s for {s['grid_points']:,} points "
          f"({s['feasible']:,} feasible, {s['meets_slo']:,} meeting the SLO by the screen); {s['simulated']} simulated "
          f"({agree['engine_meets_slo']} meeting the SLO in the engine, screen and engine agreeing on "
          f"{agree['same_verdict']}); frontier {len(r['pareto'])} points; load average {r['load']:.1f} on "
          f"{os.cpu_count()} CPUs")
    print(f"  the workers used {r['cpu']:.1f} s of CPU between them: with a free core each, about "
          f"{r['cpu'] / r['workers'] + r['accepted']:.1f} s of wall time")
    if rec:
        print(f"  recommendation: {rec['command']}  ({rec['reason']})")


def main() -> None:
    prepare_database()
    results = [run(1), run(2)]
    for r in results:
        report(r)
    print(f"speed-up with 2 workers: {results[0]['wall'] / results[1]['wall']:.2f}x")


if __name__ == "__main__":
    main()
