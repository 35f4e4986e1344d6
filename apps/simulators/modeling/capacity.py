"""Capacity and cost: requests/s + token lengths + SLOs + GPU price → GPUs and $.

Per replica of TP GPUs:
1. Batch: the largest decode batch b whose TPOT meets the SLO and whose KV cache fits (memory.fit at prompt + output
   tokens). TPOT is the decode step (at mean context prompt + output/2) stretched by the prefills the replica
   interleaves at the plan's utilization ρ (step 3): t_d / (1 − ρ · prompt · c_p / S), steady_state.py.
2. Service rate: the replica time-shares prefill and decode (continuous batching with
   chunked prefill), so one request costs prompt/P_prefill + output·TPOT(b)/b seconds of
   replica time; μ = 1 / that (steady_state.py, the formula the throughput-latency curve shares; P_prefill from
   one prefill step of the 8,192-token budget).
3. TTFT: queueing for prefill is approximated as M/M/1 with service time S (one prompt's
   prefill), whose p99 sojourn time is S·ln(100)/(1 − ρ); so ρ ≤ 1 − S·ln(100)/TTFT_p99,
   and never above `max_utilization`.
4. replicas = ceil(RPS / (ρ·μ)), GPUs = replicas · TP, $/h = GPUs · price,
   $ per million tokens = 10^6 · $/h / (3600 · tokens/s) (llm-analysis cost formula
   scaled from 1k to 1M tokens).
Ranges use the optimistic / pessimistic efficiency priors of roofline.py (the GPU family's, roofline.priors_for).
A replica is one deployment of TP · PP · DP GPUs (parallel.py): its DP ranks each run a batch b, so it serves
DP × μ; with expert parallelism on (ep > 1), EP = TP · DP for every TP tried.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._util import MAX_CONTEXT_TOKENS, fraction, positive
from .errors import ModelInputError
from .memory import TP_CHOICES, fit, tp_is_valid
from .parallel import parallelism
from .roofline import EfficiencyPriors, step_time
from .specs import GPUSpec, ModelSpec
from .steady_state import prefill_cost_per_token, prefill_step, steady_state
from .vllm_defaults import GPU_MEMORY_UTILIZATION

LN_100 = math.log(100.0)
MAX_BATCH_SEARCH = 4096
# Our planning knob, not a vLLM setting: the highest prefill-queue utilization ρ a plan may run at (step 3 above)
MAX_UTILIZATION = 0.9


@dataclass(frozen=True)
class CapacityResult:
    feasible: bool
    tp: int | None
    replicas: int
    replicas_range: list
    gpus: int
    gpus_range: list
    batch_per_replica: int
    requests_per_s_per_replica: float
    ttft_s: float
    tpot_s: float
    utilization: float
    dollars_per_hour: float
    dollars_per_hour_range: list
    dollars_per_million_tokens: float
    dollars_per_million_tokens_range: list
    dollars_per_million_output_tokens: float
    limiting_factor: str
    note: str
    derivation: str


def plan_capacity(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    requests_per_s: float,
    prompt_tokens: float,
    output_tokens: float,
    ttft_p99_s: float,
    tpot_s: float,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    tp: int | None = None,
    price_per_gpu_hour: float | None = None,
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION,
    max_utilization: float = MAX_UTILIZATION,
    priors: EfficiencyPriors | None = None,
    pp: int = 1,
    dp: int = 1,
    ep: int = 1,
    cuda_graphs: bool = True,
) -> CapacityResult:
    """GPUs, replicas, TP and cost to serve `requests_per_s` within the TTFT/TPOT SLOs."""
    rps = float(positive("requests_per_s", requests_per_s, 1e7))
    prompt = float(positive("prompt_tokens", prompt_tokens, MAX_CONTEXT_TOKENS))
    output = float(positive("output_tokens", output_tokens, MAX_CONTEXT_TOKENS))
    positive("ttft_p99_s", ttft_p99_s, 3600)
    positive("tpot_s", tpot_s, 60)
    fraction("max_utilization", max_utilization)
    price = gpu.price_per_hour_usd if price_per_gpu_hour is None else float(
        positive("price_per_gpu_hour", price_per_gpu_hour, 1e4))
    if tp is None and ep > 1:  # EP = TP · DP fixes the TP
        if ep % dp or ep // dp not in TP_CHOICES:
            raise ModelInputError("expert_parallel", f"expert parallelism spans TP · DP GPUs: with tensor_parallel "
                                  f"left to the planner, give expert_parallel = {dp} × one of {TP_CHOICES}")
        tp = ep // dp
    if tp is not None and (tp not in TP_CHOICES or not tp_is_valid(model, tp)):
        raise ModelInputError("tp", f"must be one of {TP_CHOICES} and divide the model's heads")
    parallelism(model, tp=tp or 1, pp=pp, dp=dp, ep=ep)  # the layout as asked: refused here, naming the field
    options = [tp] if tp else [t for t in TP_CHOICES if tp_is_valid(model, t)]
    args = dict(prompt=prompt, output=output, ttft=float(ttft_p99_s), tpot=float(tpot_s), rps=rps,
                weight_dtype=weight_dtype, kv_dtype=kv_dtype, util=gpu_memory_utilization,
                max_rho=float(max_utilization), priors=priors, pp=pp, dp=dp, expert_parallel=ep > 1,
                cuda_graphs=cuda_graphs)
    plans = [_replica_plan(model, gpu, t, **args) for t in options]
    feasible = [p for p in plans if p["feasible"]]
    if not feasible:
        reason = plans[-1]["reason"] if plans else "no valid TP"
        return CapacityResult(False, None, 0, [0, 0], 0, [0, 0], 0, 0.0, 0.0, 0.0, 0.0, 0.0, [0.0, 0.0], 0.0,
                              [0.0, 0.0], 0.0, plans[-1]["limit"] if plans else "tp",
                              f"Infeasible on {gpu.name} with TP up to 8: {reason}", reason)
    best = min(feasible, key=lambda p: (p["gpus"][0], p["tp"]))
    return _result(best, rps, prompt, output, price, gpu)


def _replica_plan(model, gpu, tp, *, prompt, output, ttft, tpot, rps, weight_dtype, kv_dtype, util, max_rho, priors,
                  pp, dp, expert_parallel, cuda_graphs=True):
    layout = dict(pp=pp, dp=dp, ep=tp * dp if expert_parallel else 1)
    gpus_per_replica = tp * pp * dp
    mem = fit(model, gpu, context_tokens=prompt + output, tp=tp, weight_dtype=weight_dtype,
              kv_dtype=kv_dtype, gpu_memory_utilization=util, **layout)
    max_b = int(min(float(mem.max_concurrent_sequences), MAX_BATCH_SEARCH))
    if max_b < 1:
        return {"feasible": False, "tp": tp, "limit": "memory",
                "reason": f"TP={tp}: weights leave no room for one sequence's KV cache"}
    common = dict(tp=tp, weight_dtype=weight_dtype, kv_dtype=kv_dtype, priors=priors, cuda_graphs=cuda_graphs, **layout)
    batches = np.arange(1, max_b + 1, dtype=float)
    dec = step_time(model, gpu, batch=batches, context_tokens=prompt + output / 2, **common)
    pre = step_time(model, gpu, batch=1, context_tokens=0, new_tokens=prompt, **common)
    c_ps = prefill_cost_per_token(prefill_step(model, gpu, prompt, **common))
    cases, batch_one_tpot = {}, None
    for i, key in enumerate(("expected", "optimistic", "pessimistic")):
        steps = np.atleast_1d(dec.step_time_s if key == "expected" else dec.step_time_s_range[i - 1])
        s_pre = float(pre.step_time_s if key == "expected" else pre.step_time_s_range[i - 1])
        pf_rate = 1.0 / c_ps[i]
        rho = min(max_rho, 1.0 - s_pre * LN_100 / ttft)
        if rho <= 0:
            cases[key] = None
            continue
        # steady_state per DP rank (each serves its own requests): S = ISL · c_p + OSL · t_d / b, μ = 1 / S, and the
        # TPOT a sequence sees at utilization ρ
        state = steady_state(steps, c_ps[i], batches, prompt, output, utilization=rho)
        seen = np.atleast_1d(state.tpot_s)
        if key == "expected":
            batch_one_tpot = float(seen[0])
        ok = np.nonzero(seen <= tpot)[0]
        if not len(ok):
            cases[key] = None
            continue
        b = int(ok[-1] + 1)
        mu = dp * float(np.atleast_1d(state.requests_per_s)[b - 1])
        replicas = math.ceil(rps / (rho * mu) - 1e-9)
        cases[key] = {"b": b, "mu": mu, "rho": rho, "replicas": replicas, "s_pre": s_pre,
                      "tpot": float(seen[b - 1]), "step": float(steps[b - 1]), "pf_rate": pf_rate,
                      "batch_limit": "kv_memory" if b == max_b else "tpot_slo",
                      "rho_limit": "ttft_slo" if rho < max_rho else "max_utilization"}
    exp = cases["expected"]
    if exp is None:
        s_pre = float(pre.step_time_s)
        if s_pre * LN_100 >= ttft:
            limit, why = "ttft_slo", f"one {prompt:,.0f}-token prefill takes {s_pre:.3f} s, too slow for p99 TTFT {ttft:g} s"
        else:
            step_one = float(np.atleast_1d(dec.step_time_s)[0])
            limit, why = "tpot_slo", (f"even batch 1 sees {batch_one_tpot * 1e3:.1f} ms per token (a {step_one * 1e3:.1f} ms "
                                      f"decode step and the prefills interleaved with it) > TPOT {tpot * 1e3:g} ms")
        return {"feasible": False, "tp": tp, "limit": limit, "reason": f"TP={tp}: {why}"}
    worst = cases["pessimistic"] or exp
    best = cases["optimistic"] or exp
    return {"feasible": True, "tp": tp, "case": exp, "max_b": max_b,
            "gpus": [c["replicas"] * gpus_per_replica for c in (exp, best, worst)], "gpus_per_replica": gpus_per_replica,
            "dp": dp,
            "replicas": [exp["replicas"], best["replicas"], worst["replicas"]],
            "mem": mem, "unbounded_pessimistic": cases["pessimistic"] is None}


def _result(plan, rps, prompt, output, price, gpu) -> CapacityResult:
    c, tp = plan["case"], plan["tp"]
    gpus, lo, hi = plan["gpus"]
    per_hour = [g * price for g in (gpus, lo, hi)]
    tokens_per_s = rps * (prompt + output)
    per_m = [1e6 * d / (3600.0 * tokens_per_s) for d in per_hour]
    per_m_out = 1e6 * per_hour[0] / (3600.0 * rps * output)
    limit = c["rho_limit"] if c["rho_limit"] == "ttft_slo" else c["batch_limit"]
    decode_share = output * c["tpot"] / c["b"]
    prefill_share = prompt / c["pf_rate"]
    work = "prefill" if prefill_share > decode_share else "decode"
    size = plan["gpus_per_replica"]
    layout = f"TP={tp}" if size == tp else f"{size} GPUs, TP={tp}"
    note = (f"{gpus} × {gpu.name} ({plan['replicas'][0]} replicas of {layout}). Each replica runs batch {c['b']} "
            f"(limited by {'KV-cache memory' if c['batch_limit'] == 'kv_memory' else 'the TPOT SLO'}) and is kept at "
            f"{c['rho']:.0%} utilisation ({'to hold p99 TTFT' if c['rho_limit'] == 'ttft_slo' else 'the utilisation cap'}); "
            f"{work} dominates each request's GPU time.")
    service = plan["dp"] / c["mu"]
    derivation = (
        f"decode step at batch {c['b']}: t_d = {c['step'] * 1e3:.2f} ms; service time per request T = "
        f"prompt/P_prefill + output·t_d/b = {prompt:,.0f}/{c['pf_rate']:,.0f} + {output:,.0f}·{c['step']:.4f}/{c['b']} = "
        f"{service:.4f} s → μ = {'' if plan['dp'] == 1 else str(plan['dp']) + ' DP ranks ÷ T = '}"
        f"{c['mu']:.3f} req/s per replica; ρ = min(cap, 1 − S·ln100/TTFT) with one prefill "
        f"S = {c['s_pre']:.4f} s → {c['rho']:.3f}; TPOT = t_d/(1 − ρ·(prompt/P_prefill)/T) = {c['step'] * 1e3:.2f}/"
        f"(1 − {c['rho']:.3f}·{prompt / c['pf_rate']:.4f}/{service:.4f}) = {c['tpot'] * 1e3:.2f} ms (the prefills "
        f"interleaved with decode); replicas = ceil({rps:g}/({c['rho']:.3f}·{c['mu']:.3f})) = "
        f"{plan['replicas'][0]}; GPUs = {plan['replicas'][0]}·{size} = {gpus}; $/h = {gpus}·${price:.2f} = "
        f"${per_hour[0]:,.2f}; $/M tokens = 10^6·{per_hour[0]:,.2f}/(3600·{tokens_per_s:,.0f} tokens/s) = "
        f"${per_m[0]:.4f}"
    )
    return CapacityResult(
        feasible=True, tp=tp, replicas=plan["replicas"][0], replicas_range=plan["replicas"][1:],
        gpus=gpus, gpus_range=[lo, hi], batch_per_replica=c["b"], requests_per_s_per_replica=float(c["rho"] * c["mu"]),
        ttft_s=float(c["s_pre"] / (1 - c["rho"])), tpot_s=float(c["tpot"]), utilization=float(c["rho"]),
        dollars_per_hour=per_hour[0], dollars_per_hour_range=per_hour[1:],
        dollars_per_million_tokens=per_m[0], dollars_per_million_tokens_range=per_m[1:],
        dollars_per_million_output_tokens=per_m_out, limiting_factor=limit, note=note, derivation=derivation,
    )
