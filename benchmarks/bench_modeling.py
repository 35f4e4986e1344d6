"""Time the closed-form models over a vectorized grid of 1,000,000 configurations.

Run: .venv/bin/python benchmarks/bench_modeling.py   (target: < 1 s per grid)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from apps.simulators.modeling import fit, kv_bytes_per_sequence, load_gpus, load_models, step_time


def _timed(label: str, fn) -> float:
    elapsed = float("inf")
    for _ in range(3):  # best of three: the first touch of 1M-element arrays is noisy
        start = time.perf_counter()
        result = fn()
        elapsed = min(elapsed, time.perf_counter() - start)
    size = np.size(getattr(result, "step_time_s", result if not hasattr(result, "fits") else result.fits))
    print(f"{label:<58} {size:>10,} configs  {elapsed * 1e3:8.1f} ms  ({size / elapsed / 1e6:5.1f} M/s)")
    return elapsed


def main() -> None:
    models, gpus = load_models(), load_gpus()
    batch = np.repeat(np.arange(1, 1001, dtype=float), 1000)          # 1,000 batch sizes
    context = np.tile(np.linspace(0, 131_072, 1000), 1000)            # × 1,000 contexts
    step_time(models["llama-3.1-8b"], gpus["h100-sxm"], batch=batch[:1000], context_tokens=context[:1000])  # warm-up
    print("grid: 1,000 batch sizes × 1,000 context lengths = 1,000,000 configurations")
    worst = 0.0
    for slug, gpu, tp in (("llama-3.1-8b", "h100-sxm", 1), ("llama-3.1-70b", "h100-sxm", 4),
                          ("mixtral-8x7b", "a100-80gb", 2), ("deepseek-v3", "h200", 8)):
        m, g = models[slug], gpus[gpu]
        worst = max(worst, _timed(f"step_time {slug} on {tp}× {gpu}",
                                  lambda: step_time(m, g, batch=batch, context_tokens=context, tp=tp)))
    m, g = models["gemma-2-9b"], gpus["l40s"]
    worst = max(worst, _timed("kv_bytes_per_sequence gemma-2-9b (sliding window)",
                              lambda: kv_bytes_per_sequence(m, context + 1)))
    worst = max(worst, _timed("fit gemma-2-9b on l40s",
                              lambda: fit(m, g, context_tokens=context + 1, batch=batch)))
    print(f"slowest grid: {worst * 1e3:.1f} ms for 1,000,000 configurations "
          f"({'PASS' if worst < 1.0 else 'FAIL'}: target < 1 s)")


if __name__ == "__main__":
    main()
