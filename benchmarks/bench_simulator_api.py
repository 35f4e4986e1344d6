"""Median latency of every simulator endpoint through django.test.Client, then the 1,000,000-configuration grid.

Run: .venv/bin/python benchmarks/bench_simulator_api.py   (target: median < 20 ms per endpoint)
Uses DATABASE_URL when set, otherwise a throwaway SQLite file; loads the catalog itself.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CALLS = int(os.environ.get("BENCH_CALLS", "100"))
TARGET_S = 0.020

LLAMA = {"model": "llama-3.1-8b", "gpu": "h100-sxm"}
BODIES = {
    "kv-cache": {"model": "llama-3.1-8b", "kv_dtype": "bf16", "context_tokens": 8192, "batch_size": 16},
    "fit": {**LLAMA, "context_tokens": 8192, "batch_size": 16},
    "step-time": {**LLAMA, "phase": "decode", "context_tokens": 4096, "batch_size": 32},
    "throughput-latency": {**LLAMA, "prompt_tokens": 2048, "output_tokens": 256},
    "capacity": {**LLAMA, "workload": {"requests_per_s": 20, "prompt_tokens": 2000, "output_tokens": 256},
                 "slo": {"ttft_p99_s": 2, "tpot_s": 0.05}},
    "speculative": {"acceptance_rate": 0.7, "draft_tokens": 4, "draft_cost": 0.05},
    "collectives": {"op": "all_reduce", "message_bytes": 1e6, "num_gpus": 8, "gpu": "h100-sxm"},
    "paged-kv": {"model": "llama-3.1-8b", "sequence_lengths": list(range(100, 2100, 5)), "max_model_len": 4096},
    "prefix-cache": {"synthetic": {"num_requests": 100, "num_system_prompts": 2, "system_tokens": 1800,
                                   "user_tokens": 400}, "capacity_blocks": 5000},
    "moe": {"num_experts": 256, "top_k": 8, "tokens": 64, "zipf_exponent": 0.8},
    "request-walk": {**LLAMA, "tokens": list(range(500)), "tokenizer": "cl100k_base", "output_tokens": 256},
    "serve-config": {"model": "llama-3.1-70b", "gpu": "h100-sxm", "workload": {"prompt_tokens": 2000, "output_tokens": 500}},
}


def setup_django() -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.conf import settings

    django.setup()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    from rest_framework.settings import api_settings

    api_settings.reload()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from apps.core.content import FIXTURES_DIR, LoadContext
    from apps.simulators.content import load_catalog

    ctx = LoadContext(root=FIXTURES_DIR)
    load_catalog(ctx)
    if ctx.errors:
        raise SystemExit("\n".join(map(str, ctx.errors)))


def bench_endpoints() -> float:
    from django.test import Client

    client = Client()
    worst = 0.0
    print(f"{'endpoint':<22} {'median':>9} {'p90':>9}   ({CALLS} calls each)")
    for name, body in BODIES.items():
        payload = json.dumps(body)
        timings = []
        for _ in range(CALLS):
            start = time.perf_counter()
            response = client.post(f"/api/v1/simulators/{name}/", payload, content_type="application/json")
            timings.append(time.perf_counter() - start)
            assert response.status_code == 200, (name, response.content[:300])
        median = statistics.median(timings)
        p90 = sorted(timings)[int(0.9 * len(timings)) - 1]
        worst = max(worst, median)
        flag = "" if median < TARGET_S else "  (over target)"
        print(f"{name:<22} {median * 1e3:7.2f} ms {p90 * 1e3:7.2f} ms{flag}")
    for path in ("models/", "gpus/"):
        start = time.perf_counter()
        for _ in range(CALLS):
            client.get(f"/api/v1/simulators/{path}")
        print(f"GET {path:<18} {(time.perf_counter() - start) / CALLS * 1e3:7.2f} ms (mean)")
    return worst


def main() -> None:
    setup_django()
    worst = bench_endpoints()
    print(f"slowest endpoint median: {worst * 1e3:.2f} ms ({'PASS' if worst < TARGET_S else 'FAIL'}: target < 20 ms)\n")
    from benchmarks import bench_modeling

    bench_modeling.main()


if __name__ == "__main__":
    main()
