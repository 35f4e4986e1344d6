"""Per-step cost of a mixed prefill/decode batch, from the roofline model's pieces.

`modeling.roofline.step_time` prices a *uniform* batch (b sequences, same context, same
new tokens). An engine step mixes prefill chunks and decodes, so the engine needs the
same formula summed over sequences. Every roofline term is linear in a handful of
per-step sums, which are what this module precomputes coefficients for:

  T = Σ n_i           new tokens (prefill chunk tokens + one per decode)
  B = number of scheduled sequences
  A = Σ n_i · layer_ctx(ctx_i + (n_i + 1)/2)   causal attention work (sliding layers capped)
  K = Σ layer_held(ctx_i) + L · T              KV tokens read + written, per layer

  t_compute = (c_T·T + c_B·B + c_A·A_p + c_A'·A_d) / (peak · MFU), the FLOPs shared between the decode MFU (the
              share D/T of decode tokens, sequences with one new token) and the prefill MFU (the rest); A_d is the
              attention of the decodes, whose per-head dims differ for MLA (roofline.attention_head_dims)
  t_memory  = (W(T) + k_act·T) / (BW · MBU) + k_kv·K / (BW · KV-read efficiency)
                                                          W constant except MoE: W depends on
                                                          the expected distinct experts of T tokens
  t_comm    = x_T·T + x_0  (Megatron TP: 2 ring all-reduces of T·h·bytes per layer)
  t_over    = step overhead + per-request overhead · B
  step      = max(t_compute, t_memory) + t_comm + t_over

so one step costs a few numpy reductions over the batch instead of a call to the full
model. With every sequence alike it reproduces `roofline.step_time` exactly (tested).
The efficiency factors are the roofline priors' *expected* values, the GPU family's by default
(roofline.priors_for: fitted for Hopper and Blackwell, hand-set for other GPUs), collective efficiency 0.70,
150 µs per step, 4 µs per request, plus the kernel launches of every layer in eager mode (cuda_graphs False,
vLLM's enforce_eager; modeling/step_overhead.py).
The per-step and per-request CPU overheads dominate small models at small batch.

Parallelism (modeling/parallel.py): the engine simulates one deployment of TP · PP · DP GPUs whose DP ranks share
the batch evenly, so the step's sums are the whole group's: per-rank terms (non-expert FLOPs, KV, activations,
per-request overhead, TP all-reduces and PP sends) take 1/DP of them, while the routed experts see every rank's
tokens (T_g = T): c_E · T · imbalance(T) over TP · DP GPUs, weights via the distinct experts of T, and the bytes of
their elementwise kernels (roofline.expert_elementwise_bytes) per token routed. The PP stages
run one after another, so the per-stage ÷ PP and the × PP of going through every stage cancel in compute and memory.
With EP, each MoE layer adds a dispatch and a combine all-to-all (roofline.py) priced per token of the group.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..modeling.kv import kv_bytes_per_token_per_layer
from ..modeling.memory import expert_weight_bytes, weight_bytes
from ..modeling.parallel import GPUS_PER_NODE, SCALE_OUT_BANDWIDTH_BYTES_PER_S, Parallelism, spread_time
from ..modeling.roofline import (
    DEFAULT_LINK_LATENCY_S,
    EfficiencyPriors,
    attention_cost,
    attention_head_dims,
    expected_distinct_experts,
    expert_elementwise_bytes,
    priors_for,
)
from ..modeling.specs import GPUSpec, ModelSpec, count_params, dtype_bytes
from ..modeling.step_overhead import step_overhead

# A step-cost function: (new tokens per scheduled sequence, context before the step) -> seconds.
StepCostFn = Callable[[np.ndarray, np.ndarray], float]


@dataclass(frozen=True)
class RooflineStepCost:
    """Callable step cost with coefficients precomputed for one model/GPU/TP/dtype."""

    c_tokens: float
    c_seqs: float
    c_attn: float              # attention FLOPs per unit of A, prefill
    compute_rate: float        # peak FLOP/s · MFU (per GPU)
    weights_bytes: float       # per GPU per step (dense part for MoE)
    moe_bytes_per_expert: float
    moe_num_experts: int
    moe_top_k: int
    k_kv: float
    k_act: float
    memory_rate: float         # HBM bytes/s · MBU (weights and activations)
    comm_per_token_s: float
    comm_fixed_s: float
    step_overhead_s: float
    request_overhead_s: float
    global_layers: int
    local_layers: int
    window: int
    dp: int = 1
    c_expert: float = 0.0      # expert FLOPs per GPU per token of the whole group
    c_expert_bytes: float = 0.0  # bytes of the experts' elementwise kernels per GPU per token of the group
    ep: int = 1                # > 1: the busiest EP rank sets the expert time (uniform routing)
    kv_memory_rate: float | None = None  # HBM bytes/s · KV-read efficiency; None: memory_rate
    decode_compute_rate: float | None = None  # peak FLOP/s · decode MFU; None: compute_rate
    c_attn_decode: float | None = None  # attention FLOPs per unit of A, decode (MLA's absorbed form); None: c_attn
    attn_cost: float = 1.0     # weights' peak / attention's peak (roofline.attention_cost)

    def imbalance(self, tokens: float) -> float:
        """moe.ep_rank_imbalance for uniform routing: 1 + √(2 ln EP · (1 − k/N) · EP/(T·k))."""
        if self.ep <= 1 or tokens <= 0:
            return 1.0
        n, k = self.moe_num_experts, self.moe_top_k
        return 1.0 + math.sqrt(2.0 * math.log(self.ep) * (1.0 - k / n) * self.ep / (tokens * k))

    def __call__(self, n: np.ndarray, ctx: np.ndarray) -> float:
        tokens = float(n.sum())
        seqs = float(n.size)
        ctx_eff = ctx + (n + 1) * 0.5
        if self.local_layers:
            layer_ctx = self.global_layers * ctx_eff + self.local_layers * np.minimum(ctx_eff, self.window)
            held = self.global_layers * ctx + self.local_layers * np.minimum(ctx, self.window)
            per_seq, held_sum = n * layer_ctx, float(held.sum())
        else:
            per_seq = self.global_layers * n * ctx_eff
            held_sum = self.global_layers * float(ctx.sum())
        decodes = n == 1
        return self.time(tokens, seqs, float(per_seq.sum()), held_sum, float(decodes.sum()),
                         float(per_seq[decodes].sum()))

    def time(self, tokens: float, seqs: float, attn: float, held_sum: float, decode_tokens: float | None = None,
             decode_attn: float | None = None) -> float:
        """Step seconds; `decode_tokens`: how many of the tokens are decodes (None: all when tokens == seqs, one new
        token per sequence, else none); `decode_attn`: their share of `attn` (None: all of it when every token is a
        decode, else none)."""
        if decode_tokens is None:
            decode_tokens = tokens if tokens == seqs else 0.0
        if decode_attn is None:
            decode_attn = attn if decode_tokens == tokens else 0.0
        c_decode = self.c_attn if self.c_attn_decode is None else self.c_attn_decode
        attn_flops = (self.c_attn * (attn - decode_attn) + c_decode * decode_attn) * self.attn_cost
        share = decode_tokens / tokens if tokens > 0 else 0.0
        per_flop = share / (self.decode_compute_rate or self.compute_rate) + (1.0 - share) / self.compute_rate
        layers = self.global_layers + self.local_layers
        kv_rate = self.kv_memory_rate or self.memory_rate
        # each part of a layer at its own roofline, one after the other (roofline._times): the GEMMs, attention over
        # the KV cache, and the routed experts
        gemms = max((self.c_tokens * tokens + self.c_seqs * seqs) / self.dp * per_flop,
                    (self.weights_bytes + self.k_act * tokens / self.dp) / self.memory_rate)
        attention = max(attn_flops / self.dp * per_flop, self.k_kv * (held_sum + layers * tokens) / self.dp / kv_rate)
        experts = 0.0
        if self.moe_num_experts:
            n = self.moe_num_experts
            expert_bytes = self.moe_bytes_per_expert * n * (1.0 - ((n - self.moe_top_k) / n) ** tokens)
            # compute, weight streaming and the elementwise kernels of the routed experts add up (roofline._times: the
            # no-overlap bound)
            routed = tokens * self.imbalance(tokens)
            experts = (self.c_expert * routed * per_flop
                       + (expert_bytes + self.c_expert_bytes * routed) / self.memory_rate)
        t_x = self.comm_per_token_s * tokens + self.comm_fixed_s
        return gemms + attention + experts + t_x + self.step_overhead_s + self.request_overhead_s * seqs / self.dp


def roofline_step_cost(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    tp: int = 1,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    act_dtype: str = "bf16",
    priors: EfficiencyPriors | None = None,
    link_latency_s: float = DEFAULT_LINK_LATENCY_S,
    par: Parallelism | None = None,
    cuda_graphs: bool = True,
) -> RooflineStepCost:
    """Coefficients of the roofline step time (same terms as roofline._work/_times); `priors`: the GPU family's by
    default; `cuda_graphs` False (vLLM's enforce_eager) adds the eager kernel launches to every step
    (modeling/step_overhead.py)."""
    priors = priors or priors_for(gpu, weight_dtype)
    m = model
    par = par or Parallelism(tp=tp)
    tp, dp = par.tp, par.dp
    p = count_params(m)
    b_w = dtype_bytes(weight_dtype, "weight_dtype")
    b_act = dtype_bytes(act_dtype, "act_dtype")
    lm_head = float(m.vocab_size * m.hidden_size)
    routed_active = float(m.num_moe_layers * (m.experts_per_token or 0) * p.expert_params_each)
    prefill_dims, decode_dims = attention_head_dims(m)
    table = p.embedding * 2.0 if not m.tie_word_embeddings else 0.0
    dense = weight_bytes(m, weight_dtype) - table - expert_weight_bytes(m, weight_dtype)
    moe_each = m.num_moe_layers * p.expert_params_each * b_w / par.expert_shards if m.is_moe else 0.0
    local = m.num_sliding_layers
    fixed = step_overhead(priors, m.num_layers, cuda_graphs=cuda_graphs, moe_layers=m.num_moe_layers)
    link_bw = gpu.interconnect_bandwidth_bytes_per_s / 2.0
    eff = priors.comm_efficiency.expected
    comm_tok = comm_fix = 0.0
    if tp > 1:  # per rank: 1/DP of the group's tokens
        comm_tok = 2.0 * m.num_layers * 2.0 * (tp - 1) / tp * m.hidden_size * b_act / (link_bw * eff) / dp
        comm_fix = 2.0 * m.num_layers * 2.0 * (tp - 1) * link_latency_s
    moe_group, moe_bytes_per_token = 1, 0.0  # per GPU per token of the group, per MoE collective
    if m.is_moe and par.ep > 1:
        moe_group, moe_bytes_per_token = par.ep, (m.experts_per_token or 0) * m.hidden_size * b_act / (tp * dp)
    elif m.is_moe and dp > 1:
        moe_group, moe_bytes_per_token = dp, m.hidden_size * b_act
    if moe_group > 1:
        comm_tok += 2.0 * m.num_moe_layers * float(spread_time(moe_bytes_per_token, moe_group, link_bw, eff, 0.0))
        comm_fix += 2.0 * m.num_moe_layers * (moe_group - 1) * link_latency_s
    if par.pp > 1:
        stage_bw = link_bw if par.gpus <= GPUS_PER_NODE else SCALE_OUT_BANDWIDTH_BYTES_PER_S
        comm_tok += (par.pp - 1) * m.hidden_size * b_act / (stage_bw * eff) / dp
        comm_fix += (par.pp - 1) * link_latency_s
    return RooflineStepCost(
        c_tokens=2.0 * (p.active - lm_head - routed_active) / tp,
        c_seqs=2.0 * lm_head / tp,
        c_attn=2.0 * m.num_attention_heads * prefill_dims / tp,
        c_attn_decode=2.0 * m.num_attention_heads * decode_dims / tp,
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
        step_overhead_s=fixed.cpu_step_s + fixed.launch_s + fixed.moe_kernels_s,
        request_overhead_s=fixed.per_request_s,
        global_layers=m.num_layers - local,
        local_layers=local,
        window=int(m.sliding_window or 0),
        dp=dp,
        c_expert=2.0 * routed_active / par.expert_shards,
        c_expert_bytes=expert_elementwise_bytes(m, par, b_act),
        ep=par.ep,
        kv_memory_rate=gpu.hbm_bandwidth_bytes_per_s * priors.kv_read_efficiency.expected,
        decode_compute_rate=gpu.peak_flops(weight_dtype) * priors.decode_mfu.expected,
        attn_cost=attention_cost(gpu, weight_dtype, kv_dtype),
    )


__all__ = ["RooflineStepCost", "StepCostFn", "expected_distinct_experts", "roofline_step_cost"]
