"""Steady state of one replica that interleaves prefill with decode (continuous batching with chunked prefill).

The one formula both the throughput-latency curve and the capacity planner use. A replica holds `b` sequences in
decode; each decode step of those b sequences takes t_d, and a prompt token costs c_p seconds of prefill (one step of
the scheduler's token budget, PREFILL_TOKEN_BUDGET tokens of whole prompts, divided by its tokens). Each request costs
the replica

    S = ISL · c_p + OSL · t_d / b                 seconds of replica time (service time per request)

so, with the replica always busy, it serves

    requests/s       = 1 / S
    output tokens/s  = OSL / S = OSL · b / (OSL · t_d + b · ISL · c_p)

and each of the b sequences sees one new token every

    TPOT_eff = b / (output tokens/s) = t_d + b · ISL · c_p / OSL

seconds: the decode step plus the prefill time the engine interleaves per output token, what a client measures
between tokens under chunked prefill. With ISL → 0 this is the decode-only t_d and b / t_d.

Below saturation, at a share ρ of that rate (capacity plans run at ρ ≤ 0.9), prefills take ρ · ISL · c_p / S of the
replica's time and the decode steps share the rest, so a sequence sees

    TPOT(ρ) = t_d / (1 − ρ · ISL · c_p / S)

which is TPOT_eff at ρ = 1 and t_d as ρ → 0 (an upper bound below saturation: fewer than b sequences are then in
flight, and a smaller batch steps faster).
Source: the steady-state model of benchmarks/calibration.py (its docstring), which the efficiency priors are fitted
with; the same service time capacity.py has always used (prompt / P_prefill + output · TPOT / b).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._util import out
from .roofline import StepResult, step_time
from .specs import GPUSpec, ModelSpec

# The scheduler's token budget per step for a prefill (vLLM's max_num_batched_tokens; the simulators' 8,192, see
# vllm_defaults.py for why vLLM has no single default).
PREFILL_TOKEN_BUDGET = 8192


@dataclass(frozen=True)
class SteadyState:
    service_s: float | np.ndarray            # replica seconds per request: ISL · c_p + OSL · t_d / b
    requests_per_s: float | np.ndarray       # 1 / S
    output_tokens_per_s: float | np.ndarray  # OSL / S
    tpot_s: float | np.ndarray               # t_d + b · ISL · c_p / OSL (decode step + interleaved prefill per token;
    #                                          t_d / (1 − ρ · ISL · c_p / S) below saturation)
    decode_step_s: float | np.ndarray        # t_d, the pure decode step
    prefill_s_per_token: float | np.ndarray  # c_p


def steady_state(decode_step_s, prefill_s_per_token, batch, prompt_tokens, output_tokens,
                 utilization: float = 1.0) -> SteadyState:
    """The replica's steady state at decode batch `batch` (vectorized over any argument); TPOT at `utilization` ρ
    of the saturated rate (1: the replica always busy)."""
    t_d = np.asarray(decode_step_s, dtype=float)
    c_p = np.asarray(prefill_s_per_token, dtype=float)
    b = np.asarray(batch, dtype=float)
    isl, osl = float(prompt_tokens), float(output_tokens)
    service = isl * c_p + osl * t_d / b
    tpot = t_d + b * isl * c_p / osl if utilization == 1.0 else t_d / (1.0 - utilization * isl * c_p / service)
    return SteadyState(
        service_s=out(service),
        requests_per_s=out(1.0 / service),
        output_tokens_per_s=out(osl / service),
        tpot_s=out(tpot),
        decode_step_s=out(t_d),
        prefill_s_per_token=out(c_p),
    )


def prefill_prompts(prompt_tokens: float) -> float:
    """Prompts in one prefill step of the token budget: ceil(budget / ISL), at least one."""
    return max(1.0, math.ceil(PREFILL_TOKEN_BUDGET / float(prompt_tokens)))


def prefill_step(model: ModelSpec, gpu: GPUSpec, prompt_tokens: float, **step_kwargs) -> StepResult:
    """One prefill step of the token budget (prefill_prompts whole prompts, no cached context): its step time ÷
    its tokens is c_p (prefill_cost_per_token)."""
    return step_time(model, gpu, batch=prefill_prompts(prompt_tokens), context_tokens=0, new_tokens=prompt_tokens,
                     **step_kwargs)


def prefill_cost_per_token(pf: StepResult) -> tuple[float, float, float]:
    """c_p = step seconds ÷ tokens of a prefill step: (expected, optimistic, pessimistic)."""
    return (1.0 / float(pf.tokens_per_s), 1.0 / float(pf.tokens_per_s_range[1]),
            1.0 / float(pf.tokens_per_s_range[0]))
