"""Speculative decoding: expected tokens per target step and speedup.

Leviathan, Kalman & Matias, "Fast Inference from Transformers via Speculative
Decoding" (ICML 2023, arXiv:2211.17192), Eq. 1 and Thm 3.8: with per-token acceptance
rate α (i.i.d.) and γ drafted tokens, the expected tokens per target forward pass is
E = (1 − α^(γ+1)) / (1 − α), and with a draft step costing c target steps the
expected walltime improvement is E / (γ·c + 1). Assumes the verify step costs the
same as a normal decode step, which holds while decode is memory-bound (small batch);
at large batch verification of γ+1 tokens costs more and the speedup shrinks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._util import fmt, non_negative, out, positive
from .errors import ModelInputError

MAX_GAMMA = 64


def expected_tokens_per_step(alpha, gamma) -> float | np.ndarray:
    """(1 − α^(γ+1)) / (1 − α); equals γ + 1 at α = 1."""
    a = np.asarray(non_negative("alpha", alpha, 1.0))
    g = np.asarray(non_negative("gamma", gamma, MAX_GAMMA))
    safe = np.where(a < 1.0, a, 0.5)
    e = np.where(a < 1.0, (1.0 - safe ** (g + 1.0)) / (1.0 - safe), g + 1.0)
    return out(e)


@dataclass(frozen=True)
class SpeculativeResult:
    expected_tokens_per_step: float | np.ndarray
    speedup: float | np.ndarray
    optimal_gamma: int | np.ndarray
    optimal_speedup: float | np.ndarray
    derivation: str


def speculative_speedup(alpha, gamma, draft_cost, max_gamma: int = 16) -> SpeculativeResult:
    """Speedup E/(γ·c + 1) and the γ in 1..max_gamma that maximises it (vectorized over α, γ, c)."""
    c = np.asarray(non_negative("draft_cost", draft_cost, 10.0))
    if int(max_gamma) != max_gamma or not 1 <= max_gamma <= MAX_GAMMA:
        raise ModelInputError("max_gamma", f"must be a whole number from 1 to {MAX_GAMMA}")
    positive("gamma", np.asarray(gamma) + 1)  # γ = 0 means no speculation, still valid
    e = np.asarray(expected_tokens_per_step(alpha, gamma))
    g = np.asarray(gamma, dtype=float)
    speed = e / (g * c + 1.0)
    gammas = np.arange(1, int(max_gamma) + 1, dtype=float)
    a = np.asarray(alpha, dtype=float)[..., None]
    grid = np.asarray(expected_tokens_per_step(np.broadcast_to(a, a.shape[:-1] + gammas.shape), gammas))
    grid = grid / (gammas * c[..., None] + 1.0)
    best = np.argmax(grid, axis=-1)
    best_speed = np.take_along_axis(grid, best[..., None], axis=-1)[..., 0]
    derivation = (
        f"E = (1 − α^(γ+1))/(1 − α) with α = {fmt(alpha)}, γ = {fmt(gamma)} → {fmt(e, 'tokens/step')}; "
        f"speedup = E/(γ·c + 1) with c = {fmt(c)} → {fmt(speed, '×')}; best γ in 1..{max_gamma} = "
        f"{fmt(best + 1)} giving {fmt(best_speed, '×')} (Leviathan et al. 2023, Eq. 1 and Thm 3.8)"
    )
    opt = best + 1
    return SpeculativeResult(out(e), out(speed), int(opt) if np.ndim(opt) == 0 else opt, out(best_speed), derivation)
