"""The fixed cost of one engine step, term by term, with CUDA graphs on (vLLM's default) or off (`enforce_eager`).

    t_overhead = CPU step cost (scheduling, input preparation, sampling and output processing on the engine loop's
                 critical path)                                         step_overhead_s prior (roofline.py)
               + per-request cost × sequences in the step               per_request_overhead_s prior
               + [eager only] kernel launch cost × layers               EAGER_LAUNCH_S_PER_LAYER (below)

Each term is a (low, expected, high) triple; the optimistic step takes the low ends, the pessimistic the high ends.

Detokenization is not on the step's critical path: since vLLM's V1 engine the API server process detokenizes and
streams while the EngineCore process loops over schedule → execute → update (vLLM V1 architecture: AsyncLLM and
EngineCore in separate processes; vllm/v1/engine/core.py: EngineCore.step). Before that it was: vLLM's v0.6.0 post
(blog.vllm.ai/2024/09/05/perf-update.html) profiled Llama 3 8B on one H100 under v0.5.3 at 33 % of the time in the
HTTP API server, 29 % in scheduling (gathering the last step's results, scheduling, preparing inputs) and only 38 % in
GPU execution — several milliseconds of CPU per ~7 ms step, which v0.6.0's multi-step scheduling and asynchronous
output processing, then V1's process split, took off the critical path. What remains per step is the engine loop's
own CPU time, the step_overhead_s prior: BLIS's trained-physics fit to vLLM traces, β7 ≈ 126 µs per step and
β6 ≈ 4 µs per request (SIMULATOR-NOTES §2.4).

Kernel launches: with CUDA graphs a decode step replays one captured graph, whose launch cost is inside the per-step
term; in eager mode every kernel of every layer is launched from Python, which at batch 1 adds to the step (the GPU
waits for the CPU between short kernels). Measured eager − CUDA-graph decode step at batch 1, divided by the 32 layers
of each model:
  * vLLM PR #1440 (CUDA graph for Llama, github.com/vllm-project/vllm/pull/1440): Llama-2-7B, 5 prompt + 100 output
    tokens at batch 1 in 1.2 s eager vs 1.05 s with CUDA graphs → 1.5 ms per token → 46.9 µs per layer;
  * SGLang PR #1401 (github.com/sgl-project/sglang/pull/1401), Meta-Llama-3-8B, batch 1, bench_latency median decode:
    FlashInfer 8.23 ms eager vs 7.35 ms graphed → 0.88 ms → 27.5 µs per layer; Triton attention 9.28 vs 7.06 ms →
    2.22 ms → 69.4 µs per layer.
Modelled as additive per step (the batch-1 measurement); at large batches the GPU's own time hides more of the
launches, so there it is an upper bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


class EfficiencyPriors(Protocol):
    """The two fixed-cost priors this module reads (roofline.EfficiencyPriors has them; roofline imports this
    module, so it is not imported back)."""

    @property
    def step_overhead_s(self) -> Any: ...

    @property
    def per_request_overhead_s(self) -> Any: ...


@dataclass(frozen=True)
class Term:
    """A low / expected / high fixed cost in seconds with its source."""

    low: float
    expected: float
    high: float
    source: str


EAGER_LAUNCH_S_PER_LAYER = Term(
    27.5e-6, 46.9e-6, 69.4e-6,
    "eager − CUDA-graph decode step at batch 1 ÷ 32 layers: vLLM PR #1440 Llama-2-7B (1.2 s − 1.05 s) / 100 tokens = "
    "1.5 ms → 46.9 µs; SGLang PR #1401 Meta-Llama-3-8B FlashInfer 8.23 − 7.35 ms → 27.5 µs, Triton 9.28 − 7.06 ms "
    "→ 69.4 µs",
)
CASES = ("expected", "optimistic", "pessimistic")


@dataclass(frozen=True)
class StepOverhead:
    """The fixed-cost terms of one step in one case (seconds)."""

    cpu_step_s: float          # engine-loop CPU per step (scheduling, input preparation, sampling, output update)
    per_request_s: float       # per sequence in the step
    launch_s: float            # kernel launches beyond one graph replay: 0 with CUDA graphs, per layer × L eager

    def total(self, sequences) -> np.ndarray:
        return self.cpu_step_s + self.per_request_s * np.asarray(sequences, dtype=float) + self.launch_s


def step_overhead(priors: EfficiencyPriors, layers: int, *, cuda_graphs: bool = True,
                  case: str = "expected") -> StepOverhead:
    """The terms in `case` ('expected', 'optimistic': low ends, 'pessimistic': high ends) for a model of `layers`
    layers (every layer is launched once per step, PP stages included)."""
    pick = {"expected": lambda p: p.expected, "optimistic": lambda p: p.low, "pessimistic": lambda p: p.high}[case]
    launch = 0.0 if cuda_graphs else pick(EAGER_LAUNCH_S_PER_LAYER) * layers
    return StepOverhead(pick(priors.step_overhead_s), pick(priors.per_request_overhead_s), launch)


def describe(priors: EfficiencyPriors, layers: int, cuda_graphs: bool) -> str:
    """The expected terms in words, for a derivation."""
    o = step_overhead(priors, layers, cuda_graphs=cuda_graphs)
    launch = ("CUDA graphs: one graph replay, inside the per-step term" if cuda_graphs else
              f"eager (enforce_eager): {EAGER_LAUNCH_S_PER_LAYER.expected * 1e6:.1f} µs of kernel launches per layer "
              f"× {layers} layers = {o.launch_s * 1e3:.2f} ms")
    return (f"fixed cost = engine-loop CPU {o.cpu_step_s * 1e6:.0f} µs per step + {o.per_request_s * 1e6:.0f} µs per "
            f"sequence + launches ({launch})")
