"""The heaviest accepted request per endpoint, anonymous and signed in: its CPU time and peak Python memory.

Run: .venv/bin/python benchmarks/abuse.py   (target: none over 0.5 s CPU or 200 MB)
Uses DATABASE_URL when set, otherwise a throwaway SQLite file; loads the catalog itself; throttles off.

For each endpoint a base request and the knobs that drive its cost (batch size, context, request count, list
lengths): each knob in turn is doubled while the server still answers 200, then bisected to the largest accepted
value, the others held at their largest accepted values so far (a greedy walk to the edge of what the cost limits
accept). The request found is then timed once for CPU (time.process_time) and once under tracemalloc for the peak of
Python allocations. What a knob cannot reach (a 400 names the limit) is the server's own bound, so the table shows
the most one request can cost. The flashcard import at its 20 MB limit is measured by bench_import.py.
"""

from __future__ import annotations

import copy
import json
import logging
import sys
import time
import tracemalloc
from pathlib import Path

from bench_simulator_api import setup_django  # the same throttle-free database with the catalog loaded

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CPU_TARGET_S, MEMORY_TARGET_MB = 0.5, 200
MAX_DOUBLINGS, BISECT_STEPS = 24, 8

LLAMA = {"model": "llama-3.1-8b", "gpu": "h100-sxm"}
WORKLOAD = {"num_requests": 50, "arrival_rate_per_s": 10, "prompt_tokens": 500, "output_tokens": 100}
# endpoint: (method, path, base body, knobs as key paths into the body; a list knob grows by its length)
ENDPOINTS = {
    "kv-cache": ("POST", "simulators/kv-cache/", {"model": "llama-3.1-8b", "kv_dtype": "bf16", "context_tokens": 8192,
                                                   "batch_size": 16}, [("batch_size",), ("context_tokens",)]),
    "fit": ("POST", "simulators/fit/", {**LLAMA, "context_tokens": 8192, "batch_size": 16},
            [("batch_size",), ("context_tokens",)]),
    "step-time": ("POST", "simulators/step-time/", {**LLAMA, "phase": "decode", "context_tokens": 4096,
                                                     "batch_size": 32}, [("batch_size",), ("context_tokens",)]),
    "throughput-latency": ("POST", "simulators/throughput-latency/", {**LLAMA, "prompt_tokens": 2048,
                                                                       "output_tokens": 256},
                           [("prompt_tokens",), ("output_tokens",)]),
    "capacity": ("POST", "simulators/capacity/", {**LLAMA, "workload": {"requests_per_s": 20, "prompt_tokens": 2000,
                                                                         "output_tokens": 256},
                                                   "slo": {"ttft_p99_s": 2, "tpot_s": 0.05}},
                 [("workload", "requests_per_s"), ("workload", "prompt_tokens")]),
    "speculative": ("POST", "simulators/speculative/", {"acceptance_rate": 0.7, "draft_tokens": 4, "draft_cost": 0.05},
                    [("draft_tokens",)]),
    "collectives": ("POST", "simulators/collectives/", {"op": "all_reduce", "message_bytes": 1e6, "num_gpus": 8,
                                                         "gpu": "h100-sxm"}, [("num_gpus",), ("message_bytes",)]),
    "paged-kv": ("POST", "simulators/paged-kv/", {"model": "llama-3.1-8b", "sequence_lengths": [1000] * 10,
                                                   "max_model_len": 4096}, [("sequence_lengths",)]),
    "prefix-cache": ("POST", "simulators/prefix-cache/", {"synthetic": {"num_requests": 100, "num_system_prompts": 2,
                                                                         "system_tokens": 1800, "user_tokens": 400},
                                                           "capacity_blocks": 5000},
                     [("synthetic", "num_requests"), ("synthetic", "system_tokens"), ("synthetic", "user_tokens")]),
    "moe": ("POST", "simulators/moe/", {"num_experts": 256, "top_k": 8, "tokens": 64, "zipf_exponent": 0.8},
            [("tokens",), ("num_experts",)]),
    "request-walk": ("POST", "simulators/request-walk/", {**LLAMA, "tokens": list(range(100)),
                                                           "tokenizer": "cl100k_base", "output_tokens": 64},
                     [("tokens",), ("output_tokens",)]),
    "serve-config": ("POST", "simulators/serve-config/", {"model": "llama-3.1-70b", "gpu": "h100-sxm",
                                                           "workload": {"prompt_tokens": 2000, "output_tokens": 500}},
                     [("workload", "prompt_tokens")]),
    "engine": ("POST", "simulators/engine/", {**LLAMA, "workload": dict(WORKLOAD)},
               [("workload", "num_requests"), ("workload", "output_tokens"), ("workload", "prompt_tokens")]),
    "cluster": ("POST", "simulators/cluster/", {**LLAMA, "replicas": 2, "workload": dict(WORKLOAD)},
                [("workload", "num_requests"), ("replicas",), ("workload", "output_tokens")]),
    "search": ("GET", "search/", {"q": "kv cache"}, [("q",)]),
}


def _get(body: dict, path: tuple):
    for key in path:
        body = body[key]
    return body


def _set(body: dict, path: tuple, value) -> dict:
    body = copy.deepcopy(body)
    node = body
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return body


def _scaled(body: dict, path: tuple, factor: float) -> dict:
    value = _get(body, path)
    if isinstance(value, list):
        size = max(1, int(len(value) * factor))
        return _set(body, path, (value * (size // max(1, len(value)) + 1))[:size])
    if isinstance(value, str):
        return _set(body, path, (value + " ") * int(factor) if factor >= 1 else value)
    scaled = value * factor
    return _set(body, path, int(scaled) if isinstance(value, int) else scaled)


def call(client, method: str, url: str, body: dict):
    if method == "GET":
        return client.get(url, body)
    return client.post(url, json.dumps(body), content_type="application/json")


def heaviest(client, method: str, url: str, body: dict, knobs: list[tuple]) -> tuple[dict, str]:
    """Greedy walk along each knob to the largest value still answered 200; returns (body, last refusal)."""
    refusal = ""
    for knob in knobs:
        low, factor = body, 1.0
        for _ in range(MAX_DOUBLINGS):
            candidate = _scaled(body, knob, factor * 2)
            response = call(client, method, url, candidate)
            if response.status_code != 200:
                refusal = response.content[:160].decode(errors="replace")
                break
            low, factor = candidate, factor * 2
        else:
            body = low
            continue
        lo, hi = factor, factor * 2
        for _ in range(BISECT_STEPS):
            mid = (lo + hi) / 2
            candidate = _scaled(body, knob, mid)
            if call(client, method, url, candidate).status_code == 200:
                lo, low = mid, candidate
            else:
                hi = mid
        body = low
    return body, refusal


def measure(client, method: str, url: str, body: dict) -> tuple[int, float, float]:
    cpu = time.process_time()
    response = call(client, method, url, body)
    cpu = time.process_time() - cpu
    tracemalloc.start()
    call(client, method, url, body)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return response.status_code, cpu, peak


def describe(body: dict, knobs: list[tuple]) -> str:
    parts = []
    for knob in knobs:
        value = _get(body, knob)
        shown = f"len {len(value)}" if isinstance(value, (list, str)) else f"{value:g}"
        parts.append(f"{'.'.join(knob)}={shown}")
    return ", ".join(parts)


def main() -> None:
    setup_django()
    logging.getLogger("django.request").setLevel(logging.ERROR)  # the search walks past each limit: 400s expected
    from django.contrib.auth import get_user_model
    from django.test import Client

    user, _ = get_user_model().objects.get_or_create(username="bench-abuse")
    signed_in = Client()
    signed_in.force_login(user)
    clients = {"anonymous": Client(), "signed-in": signed_in}
    rows, over = [], []
    for name, (method, path, base, knobs) in ENDPOINTS.items():
        url = f"/api/v1/{path}"
        for who, client in clients.items():
            if call(client, method, url, base).status_code != 200:
                rows.append((name, who, "base request refused", 0, 0.0, 0.0))
                continue
            body, _ = heaviest(client, method, url, base, knobs)
            status, cpu, peak = measure(client, method, url, body)
            rows.append((name, who, describe(body, knobs), status, cpu, peak))
            if cpu > CPU_TARGET_S or peak > MEMORY_TARGET_MB:
                over.append(f"{name} ({who})")
            print(f"{name:<19} {who:<10} {status:>4} {cpu * 1e3:9.1f} ms {peak:8.1f} MB  {describe(body, knobs)}",
                  flush=True)
    print("\n| endpoint | caller | heaviest accepted request | status | CPU | peak memory |\n|---|---|---|---|---|---|")
    for name, who, what, status, cpu, peak in rows:
        print(f"| {name} | {who} | {what} | {status} | {cpu * 1e3:.1f} ms | {peak:.1f} MB |")
    print(f"\ntarget: none over {CPU_TARGET_S} s CPU or {MEMORY_TARGET_MB} MB: "
          + ("PASS" if not over else "FAIL: " + ", ".join(over)))
    get_user_model().objects.filter(pk=user.pk).delete()


if __name__ == "__main__":
    main()
