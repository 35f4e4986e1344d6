"""MoE routing: per-expert load, imbalance, dropped tokens and distinct experts.

Routing skew is modelled as Zipf popularity p_i ∝ 1/i^s over N experts (s = 0 is
uniform). With top-k routing without replacement, expert i is chosen by a token with
probability q_i = min(1, k·p_i) (renormalised so Σq = k). Expected load of expert i =
T·q_i; imbalance = max/mean; with capacity C = capacity_factor · T·k/N per expert
(GShard / Switch Transformer capacity factor), expected dropped assignments
≈ Σ max(0, T·q_i − C) (mean-field; real drops are higher because loads fluctuate).
Distinct experts touched by T tokens: Σ 1 − (1 − q_i)^T, which reduces to BLIS's
N·(1 − ((N − k)/N)^T) when routing is uniform. EP all-to-all bytes per layer =
2 (dispatch + combine) · T · k · h · B.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._util import MAX_BATCH, fmt, non_negative, out, positive
from .errors import ModelInputError


@dataclass(frozen=True)
class MoELoadResult:
    selection_probability: np.ndarray     # q_i per expert, sums to top_k
    expected_load_tokens: np.ndarray      # per expert
    imbalance: float                      # max / mean load
    capacity_tokens: float
    dropped_fraction: float
    distinct_experts: float
    all_to_all_bytes_per_layer: float
    derivation: str


def routing_probabilities(num_experts: int, top_k: int, zipf_exponent: float = 0.0) -> np.ndarray:
    if int(num_experts) != num_experts or not 1 <= num_experts <= 100_000:
        raise ModelInputError("num_experts", "must be a whole number from 1 to 100,000")
    if int(top_k) != top_k or not 1 <= top_k <= num_experts:
        raise ModelInputError("top_k", "must be a whole number from 1 to num_experts")
    s = float(non_negative("zipf_exponent", zipf_exponent, 10.0))
    p = 1.0 / np.arange(1, num_experts + 1) ** s
    q = top_k * p / p.sum()
    for _ in range(num_experts):  # cap at 1 and hand the excess to the unsaturated experts
        over = q > 1.0
        if not over.any():
            break
        excess = (q[over] - 1.0).sum()
        q[over] = 1.0
        free = q < 1.0
        q[free] += excess * q[free] / q[free].sum()
    return q


def expert_load(
    *, num_experts: int, top_k: int, tokens: float, zipf_exponent: float = 0.0,
    capacity_factor: float = 1.25, hidden_size: int = 0, act_bytes: float = 2.0,
) -> MoELoadResult:
    """Expected per-expert load, imbalance, drops at a capacity factor, and distinct experts."""
    t = float(positive("tokens", tokens, MAX_BATCH * 100))
    cf = float(positive("capacity_factor", capacity_factor, 100.0))
    non_negative("hidden_size", hidden_size, 1e6)
    q = routing_probabilities(num_experts, top_k, zipf_exponent)
    load = t * q
    mean = t * top_k / num_experts
    capacity = cf * mean
    dropped = float(np.maximum(load - capacity, 0.0).sum() / (t * top_k))
    distinct = float(np.sum(1.0 - (1.0 - q) ** t))
    a2a = 2.0 * t * top_k * hidden_size * act_bytes
    derivation = (
        f"p_i ∝ 1/i^{zipf_exponent:g} over {num_experts} experts, q_i = min(1, {top_k}·p_i); "
        f"expected load T·q_i with T = {fmt(t, 'tokens')}: max {fmt(load.max())}, mean T·k/N = {fmt(mean)} → "
        f"imbalance {load.max() / mean:.2f}×; capacity {cf:g} × {fmt(mean)} = {fmt(capacity)} tokens/expert → "
        f"{dropped:.1%} of assignments dropped; distinct experts Σ 1 − (1 − q_i)^T = {distinct:.1f} of {num_experts}; "
        f"all-to-all 2·T·k·h·B = {fmt(a2a, 'B')} per layer"
    )
    return MoELoadResult(q, load, float(load.max() / mean), capacity, dropped, distinct, a2a, derivation)


def ep_rank_imbalance(num_experts: int, top_k: int, tokens, expert_parallel: int, zipf_exponent: float = 0.0):
    """Expected busiest EP rank's load ÷ the mean rank load (vectorized over `tokens`, the tokens of the whole EP group).

    Rank r holds experts r·N/EP … (r+1)·N/EP − 1. Its token-expert assignments have mean μ_r = T·Σ q_i and variance
    σ_r² = T·Σ q_i(1 − q_i) (each token picks expert i with probability q_i); the expected maximum over EP ranks is
    taken as max_r μ_r + √(2 ln EP)·σ_r (the Gaussian extreme-value bound), over the mean T·k/EP. Uniform routing
    gives 1 + √(2 ln EP · (1 − k/N) · EP/(T·k)): skew from finite batches alone, gone as T grows; Zipf skew adds a
    floor that batching does not remove."""
    t = np.asarray(positive("tokens", tokens, MAX_BATCH * 100), dtype=float)
    if expert_parallel <= 1:
        return out(np.ones_like(t))
    if num_experts % expert_parallel:
        raise ModelInputError("expert_parallel", f"must divide the {num_experts} experts")
    q = routing_probabilities(num_experts, top_k, zipf_exponent).reshape(expert_parallel, -1)
    share, spread = q.sum(axis=1), (q * (1.0 - q)).sum(axis=1)
    z = np.sqrt(2.0 * np.log(expert_parallel))
    busiest = np.max(t[..., None] * share + z * np.sqrt(t[..., None] * spread), axis=-1)
    return out(busiest / (t * top_k / expert_parallel))


def distinct_experts(num_experts: int, top_k: int, tokens) -> float | np.ndarray:
    """Uniform-routing expected distinct experts N·(1 − ((N − k)/N)^T) (vectorized over T)."""
    routing_probabilities(num_experts, top_k)
    t = positive("tokens", tokens, MAX_BATCH * 100)
    return out(num_experts * (1.0 - ((num_experts - top_k) / num_experts) ** t))
