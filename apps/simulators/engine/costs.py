"""Per-step cost of a mixed prefill/decode batch, from the roofline model's pieces.

`modeling.roofline.step_time` prices a *uniform* batch (b sequences, same context, same
new tokens). An engine step mixes prefill chunks and decodes, so the engine needs the
same formula summed over sequences. Every roofline term is linear in a handful of
per-step sums, which are what this module precomputes coefficients for:

  T = Σ n_i           new tokens (prefill chunk tokens + one per decode)
  B = number of scheduled sequences
  A = Σ n_i · layer_ctx(ctx_i + (n_i + 1)/2)   causal attention work (sliding layers capped)
  K = Σ layer_held(ctx_i) + L · T              KV tokens read + written, per layer

  t_compute = (c_T·T + c_B·B + c_A·A) / (peak · MFU)
  t_memory  = (W(T) + k_kv·K + k_act·T) / (BW · MBU)      W constant except MoE: W depends on
                                                          the expected distinct experts of T tokens
  t_comm    = x_T·T + x_0  (Megatron TP: 2 ring all-reduces of T·h·bytes per layer)
  t_over    = step overhead + per-request overhead · B
  step      = max(t_compute, t_memory) + t_comm + t_over

so one step costs a few numpy reductions over the batch instead of a call to the full
model. With every sequence alike it reproduces `roofline.step_time` exactly (tested).
The efficiency factors are the roofline priors' *expected* values: MFU 0.45, MBU 0.75,
collective efficiency 0.70, 150 µs per step, 4 µs per request (sources in roofline.PRIORS).
The per-step and per-request CPU overheads dominate small models at small batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..modeling.kv import kv_bytes_per_token_per_layer
from ..modeling.memory import weight_bytes
from ..modeling.roofline import DEFAULT_LINK_LATENCY_S, PRIORS, EfficiencyPriors, expected_distinct_experts
from ..modeling.specs import GPUSpec, ModelSpec, count_params, dtype_bytes

# A step-cost function: (new tokens per scheduled sequence, context before the step) -> seconds.
StepCostFn = Callable[[np.ndarray, np.ndarray], float]


@dataclass(frozen=True)
class RooflineStepCost:
    """Callable step cost with coefficients precomputed for one model/GPU/TP/dtype."""

    c_tokens: float
    c_seqs: float
    c_attn: float
    compute_rate: float        # peak FLOP/s · MFU (per GPU)
    weights_bytes: float       # per GPU per step (dense part for MoE)
    moe_bytes_per_expert: float
    moe_num_experts: int
    moe_top_k: int
    k_kv: float
    k_act: float
    memory_rate: float         # HBM bytes/s · MBU
    comm_per_token_s: float
    comm_fixed_s: float
    step_overhead_s: float
    request_overhead_s: float
    global_layers: int
    local_layers: int
    window: int

    def __call__(self, n: np.ndarray, ctx: np.ndarray) -> float:
        tokens = float(n.sum())
        seqs = float(n.size)
        ctx_eff = ctx + (n + 1) * 0.5
        if self.local_layers:
            layer_ctx = self.global_layers * ctx_eff + self.local_layers * np.minimum(ctx_eff, self.window)
            held = self.global_layers * ctx + self.local_layers * np.minimum(ctx, self.window)
            attn, held_sum = float((n * layer_ctx).sum()), float(held.sum())
        else:
            attn = self.global_layers * float((n * ctx_eff).sum())
            held_sum = self.global_layers * float(ctx.sum())
        return self.time(tokens, seqs, attn, held_sum)

    def time(self, tokens: float, seqs: float, attn: float, held_sum: float) -> float:
        t_c = (self.c_tokens * tokens + self.c_seqs * seqs + self.c_attn * attn) / self.compute_rate
        weights = self.weights_bytes
        if self.moe_num_experts:
            n = self.moe_num_experts
            weights += self.moe_bytes_per_expert * n * (1.0 - ((n - self.moe_top_k) / n) ** tokens)
        layers = self.global_layers + self.local_layers
        t_m = (weights + self.k_kv * (held_sum + layers * tokens) + self.k_act * tokens) / self.memory_rate
        t_x = self.comm_per_token_s * tokens + self.comm_fixed_s
        return max(t_c, t_m) + t_x + self.step_overhead_s + self.request_overhead_s * seqs


def roofline_step_cost(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    tp: int = 1,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    act_dtype: str = "bf16",
    priors: EfficiencyPriors = PRIORS,
    link_latency_s: float = DEFAULT_LINK_LATENCY_S,
) -> RooflineStepCost:
    """Coefficients of the roofline step time (same terms as roofline._work/_times)."""
    m = model
    p = count_params(m)
    b_w = dtype_bytes(weight_dtype, "weight_dtype")
    b_act = dtype_bytes(act_dtype, "act_dtype")
    lm_head = float(m.vocab_size * m.hidden_size)
    if m.attention == "mla":
        d_qk, d_v = (m.qk_nope_head_dim or 0) + (m.qk_rope_head_dim or 0), m.v_head_dim or 0
    else:
        d_qk = d_v = m.head_dim
    table = p.embedding * 2.0 if not m.tie_word_embeddings else 0.0
    dense = weight_bytes(m, weight_dtype) - table
    moe_each = 0.0
    if m.is_moe:
        dense -= p.routed_experts * b_w
        moe_each = m.num_moe_layers * p.expert_params_each * b_w / tp
    local = m.num_sliding_layers
    link_bw = gpu.interconnect_bandwidth_bytes_per_s / 2.0
    eff = priors.comm_efficiency.expected
    comm_tok = comm_fix = 0.0
    if tp > 1:
        comm_tok = 2.0 * m.num_layers * 2.0 * (tp - 1) / tp * m.hidden_size * b_act / (link_bw * eff)
        comm_fix = 2.0 * m.num_layers * 2.0 * (tp - 1) * link_latency_s
    return RooflineStepCost(
        c_tokens=2.0 * (p.active - lm_head) / tp,
        c_seqs=2.0 * lm_head / tp,
        c_attn=2.0 * m.num_attention_heads * (d_qk + d_v) / tp,
        compute_rate=gpu.peak_flops(weight_dtype) * priors.mfu.expected,
        weights_bytes=dense / tp,
        moe_bytes_per_expert=moe_each,
        moe_num_experts=int(m.num_experts or 0),
        moe_top_k=int(m.experts_per_token or 0),
        k_kv=kv_bytes_per_token_per_layer(m, kv_dtype, tp),
        k_act=2.0 * m.num_layers * m.hidden_size * b_act,
        memory_rate=gpu.hbm_bandwidth_bytes_per_s * priors.mbu.expected,
        comm_per_token_s=comm_tok,
        comm_fixed_s=comm_fix,
        step_overhead_s=priors.step_overhead_s.expected,
        request_overhead_s=priors.per_request_overhead_s.expected,
        global_layers=m.num_layers - local,
        local_layers=local,
        window=int(m.sliding_window or 0),
    )


__all__ = ["RooflineStepCost", "StepCostFn", "expected_distinct_experts", "roofline_step_cost"]
