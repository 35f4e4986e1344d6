"""Simulated requests per wall-clock second for one engine: 10,000 requests of Llama-3.1-8B on one H100.

Run: .venv/bin/python benchmarks/bench_engine.py   (target: < 2 s; Vidur's core took ~12 s)
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from apps.simulators.engine.metrics import SLO
from apps.simulators.engine.simulate import ServingSetup, simulate
from apps.simulators.engine.workload import LengthDist, WorkloadSpec, generate
from apps.simulators.modeling import load_gpus, load_models


def main() -> None:
    setup = ServingSetup(load_models()["llama-3.1-8b"], load_gpus()["h100-sxm"])
    spec = WorkloadSpec(num_requests=10_000, arrival_rate_per_s=25, prompt=LengthDist("lognormal", mean=512, sigma=0.6),
                        output=LengthDist("lognormal", mean=200, sigma=0.6))
    workload = generate(spec, np.random.default_rng(0))
    start = time.perf_counter()
    r = simulate(setup, workload, slo=SLO())
    wall = time.perf_counter() - start
    print(f"10,000 requests, {r['steps']:,} engine steps in {wall:.2f} s wall: "
          f"{10_000 / wall:,.0f} simulated requests/s; p99 TTFT {r['ttft_s']['p99'] * 1e3:.0f} ms, "
          f"{r['throughput']['output_tokens_per_s']:,.0f} output tokens/s; invariants ok: "
          f"{r['invariants']['tokens_conserved'] and r['invariants']['littles_law']['ok']}")


if __name__ == "__main__":
    main()
