"""How close the sweep screen (engine/screen.py) comes to the discrete-event engine, point by point.

72 points (H100, A100 and L40S × TP 1/2/4 × 1-2 replicas × max_num_seqs 4/16/64/256) of Llama 3.1 8B under 200
lognormal requests at 20/s, SLO p99 TTFT 0.5 s and TPOT 50 ms. Prints how often the screen and the engine agree on
meeting the SLO and, over the points the engine says meet it, the range and geometric mean of screen ÷ engine for
p99 TTFT, p99 TPOT and $ per million output tokens: the margins of grid.select_candidates must cover these.
Run: .venv/bin/python benchmarks/screen_accuracy.py
"""

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DATABASE_URL", "sqlite:///:memory:")

import django

django.setup()

from apps.simulators.engine.engine import WorkLimit  # noqa: E402
from apps.simulators.engine.grid import grid_points, point_params  # noqa: E402
from apps.simulators.engine.metrics import SLO  # noqa: E402
from apps.simulators.engine.screen import screen_points  # noqa: E402
from apps.simulators.engine.simulate import ServingSetup, simulate  # noqa: E402
from apps.simulators.modeling import load_gpus, load_models  # noqa: E402
from apps.simulators.simulation import SETUP_FIELDS, workload_build  # noqa: E402

BASE = {"model": "llama-3.1-8b", "seed": 0, "replicas": 1, "router": "round_robin",
        "workload": {"num_requests": 200, "arrival_rate_per_s": 20,
                     "prompt_tokens": {"dist": "lognormal", "mean": 512, "sigma": 0.6},
                     "output_tokens": {"dist": "lognormal", "mean": 128, "sigma": 0.6}},
        "slo": {"ttft_s": 0.5, "tpot_s": 0.05}}
GRID = {"gpu": ["h100-sxm", "a100-80gb", "l40s"], "tensor_parallel": [1, 2, 4], "replicas": [1, 2],
        "max_num_seqs": [4, 16, 64, 256]}


def main() -> None:
    models, gpus = load_models(), load_gpus()
    points = [point_params(BASE, v) for v in grid_points(GRID)]
    workload, slo = workload_build(workload=BASE["workload"], seed=0), SLO(**BASE["slo"])
    screen = screen_points(models[BASE["model"]], {g: gpus[g] for g in GRID["gpu"]}, points, workload, slo)
    ratios: dict[str, list[float]] = {"p99 TTFT": [], "p99 TPOT": [], "$ per million tokens": []}
    agree = 0
    for i, p in enumerate(points):
        setup = ServingSetup(models[p["model"]], gpus[p["gpu"]], **{k: p[k] for k in SETUP_FIELDS if k in p})
        r = simulate(setup, workload, slo=slo, replicas=p["replicas"], limit=WorkLimit(600_000, 1_000_000))
        meets = r["ttft_s"]["p99"] <= slo.ttft_s and r["tpot_s"]["p99"] <= slo.tpot_s
        agree += bool(screen.meets_slo[i]) == meets
        if meets:
            ratios["p99 TTFT"].append(screen.ttft_p99_s[i] / r["ttft_s"]["p99"])
            ratios["p99 TPOT"].append(screen.tpot_p99_s[i] / r["tpot_s"]["p99"])
            ratios["$ per million tokens"].append(screen.usd_per_million_tokens[i]
                                                  / r["cost"]["usd_per_million_output_tokens"])
    met = len(ratios["p99 TTFT"])
    print(f"{len(points)} points; the engine says {met} meet the SLO; screen and engine agree on {agree}")
    for name, values in ratios.items():
        a = np.array(values)
        print(f"screen / engine, {name}: {a.min():.2f}-{a.max():.2f} x, geometric mean {np.exp(np.log(a).mean()):.2f}")


if __name__ == "__main__":
    main()
