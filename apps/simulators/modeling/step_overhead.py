"""The fixed cost of one engine step, term by term, with CUDA graphs on (vLLM's default) or off (`enforce_eager`).

    t_overhead = CPU step cost (scheduling, input preparation, sampling and output processing on the engine loop's
                 critical path)                                         step_overhead_s prior (roofline.py)
               + per-request cost × sequences in the step               per_request_overhead_s prior
               + [eager only] kernel launch cost × layers               EAGER_LAUNCH_S_PER_LAYER (below)
               + [MoE only] fixed GPU time of the routed experts' kernels × MoE layers
                                                                        MOE_LAYER_FIXED_S (below)

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

The routed experts' kernels: a MoE layer's fused_moe call (top-k, sorting the tokens by expert, two grouped GEMMs, the
activation and the weighted sum: several kernels however few tokens there are) takes a fixed GPU time beyond streaming
the touched experts' weights. Kernel benchmarks timed under CUDA-graph replay (vLLM's benchmarks/kernels/
benchmark_moe.py, SGLang's tuning_fused_moe_triton.py), each less its expert bytes:
  * vLLM PR #24700 (github.com/vllm-project/vllm/pull/24700), Qwen3-30B-A3B FP8 at TP 1 (128 experts of 4.72 MB, 8 per
    token), the PR's configs at batch 1-64: 40.44, 56.15, 78.10, 118.64, 164.64, 210.07, 237.26 µs against the expected
    distinct experts' 37.7-594.3 MB; least squares, 30.2 µs + bytes at 2.89 TB/s;
  * vLLM PR #44830 (github.com/vllm-project/vllm/pull/44830), Qwen3-Next-80B FP8 at TP 4 on an H100 80GB HBM3 (E=512,
    N=128), batch 1: 29.45 µs − 10 experts × 0.786 MB / 3.35 TB/s = 27.1 µs;
  * SGLang PR #11730 (github.com/sgl-project/sglang/pull/11730), Qwen3-235B-A22B FP8 at TP 8 on an H200 (E=128,
    N=192), batch 1, default config: 31.70 µs − 8 × 2.36 MB / 4.8 TB/s = 27.8 µs.
Added once per MoE layer and step: at batch 1 it is most of the experts' time when TP cuts each expert into slivers
(gpt-oss-120b in MXFP4 at TP 8: 4 experts × 13.2 MB ÷ 8 = 6.6 MB per layer, 3.3 µs on an H100 at MBU 0.6), and nothing worth counting beside a large
batch's expert GEMMs.
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
MOE_LAYER_FIXED_S = Term(
    27.1e-6, 27.8e-6, 30.2e-6,
    "fused_moe GPU time less its expert bytes at batch 1 (CUDA-graph replay): vLLM PR #44830 Qwen3-Next-80B FP8 TP 4 "
    "on H100 29.45 µs − 7.86 MB / 3.35 TB/s = 27.1 µs; SGLang PR #11730 Qwen3-235B FP8 TP 8 on H200 31.70 µs − "
    "18.87 MB / 4.8 TB/s = 27.8 µs; vLLM PR #24700 Qwen3-30B-A3B FP8 TP 1, batch 1-64 least squares 30.2 µs",
)
CASES = ("expected", "optimistic", "pessimistic")


@dataclass(frozen=True)
class StepOverhead:
    """The fixed-cost terms of one step in one case (seconds)."""

    cpu_step_s: float          # engine-loop CPU per step (scheduling, input preparation, sampling, output update)
    per_request_s: float       # per sequence in the step
    launch_s: float            # kernel launches beyond one graph replay: 0 with CUDA graphs, per layer × L eager
    moe_kernels_s: float = 0.0  # the routed experts' fixed kernel time × MoE layers (GPU time, graphs or not)

    def total(self, sequences) -> np.ndarray:
        return (self.cpu_step_s + self.per_request_s * np.asarray(sequences, dtype=float) + self.launch_s
                + self.moe_kernels_s)


def step_overhead(priors: EfficiencyPriors, layers: int, *, cuda_graphs: bool = True, case: str = "expected",
                  moe_layers: int = 0) -> StepOverhead:
    """The terms in `case` ('expected', 'optimistic': low ends, 'pessimistic': high ends) for a model of `layers`
    layers, `moe_layers` of them MoE (every layer is launched once per step, PP stages included)."""
    pick = {"expected": lambda p: p.expected, "optimistic": lambda p: p.low, "pessimistic": lambda p: p.high}[case]
    launch = 0.0 if cuda_graphs else pick(EAGER_LAUNCH_S_PER_LAYER) * layers
    return StepOverhead(pick(priors.step_overhead_s), pick(priors.per_request_overhead_s), launch,
                        pick(MOE_LAYER_FIXED_S) * moe_layers)


def describe(priors: EfficiencyPriors, layers: int, cuda_graphs: bool, moe_layers: int = 0) -> str:
    """The expected terms in words, for a derivation."""
    o = step_overhead(priors, layers, cuda_graphs=cuda_graphs, moe_layers=moe_layers)
    launch = ("CUDA graphs: one graph replay, inside the per-step term" if cuda_graphs else
              f"eager (enforce_eager): {EAGER_LAUNCH_S_PER_LAYER.expected * 1e6:.1f} µs of kernel launches per layer "
              f"× {layers} layers = {o.launch_s * 1e3:.2f} ms")
    experts = (f" + the routed experts' fixed kernel time {MOE_LAYER_FIXED_S.expected * 1e6:.1f} µs × {moe_layers} MoE "
               f"layers = {o.moe_kernels_s * 1e3:.2f} ms" if moe_layers else "")
    return (f"fixed cost = engine-loop CPU {o.cpu_step_s * 1e6:.0f} µs per step + {o.per_request_s * 1e6:.0f} µs per "
            f"sequence + launches ({launch}){experts}")
