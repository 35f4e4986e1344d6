"""One engine simulation: the function behind the synchronous engine/cluster endpoints and every sweep point.

Parameters are a validated request (apps.simulators.api.inputs.ServingInput and its subclasses). Every refusal (an
unknown slug, a workload that can never run, a work cap) is an InvalidInput naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import numpy as np

from apps.core.exceptions import InvalidInput
from apps.simulators import catalog
from apps.simulators.engine.engine import SimulationError, WorkLimit
from apps.simulators.engine.grid import point_params
from apps.simulators.engine.metrics import SLO
from apps.simulators.engine.simulate import Disaggregation, ServingSetup, check_fits, kv_blocks, simulate
from apps.simulators.engine.workload import LengthDist, Workload, WorkloadError, WorkloadSpec, from_trace, generate
from apps.simulators.modeling import ModelInputError

# Work caps. A synchronous request must answer within a second or two on a small machine, so its
# workload is bounded up front (tokens; a lower bound on steps) and while it runs (engine steps and
# requests scheduled one at a time, both summed over all replicas and pools). Measured on 2 busy
# cores: a step costs 3-8 us, a request scheduled one at a time 2-5 us, so the heaviest legal request
# answers in about a second. A sweep point runs in a worker and may use more.
MAX_TOKENS = 4_000_000          # Σ (prompt + output) over the workload's requests
SYNC_MAX_STEPS = 120_000
SYNC_MAX_ENTRIES = 200_000
# Anonymous visitors cost nothing to send, so their caps keep one request near 50 ms of CPU (measured at the cap:
# 23-60 ms on 2 busy cores for the three ways a workload can be heavy: one long output, max_num_seqs 1, and
# requests scheduled one at a time).
ANON_MAX_STEPS = 8_000
ANON_MAX_ENTRIES = 15_000
SWEEP_MAX_STEPS = 600_000
SWEEP_MAX_ENTRIES = 1_000_000



@contextmanager
def engine_errors():
    """The engine's and modeling's own errors → InvalidInput on the same field."""
    try:
        yield
    except (SimulationError, WorkloadError, ModelInputError) as exc:
        raise InvalidInput(exc.message, field=exc.field)


def _dist(value: Any) -> LengthDist:
    if isinstance(value, (int, float)):
        return LengthDist("fixed", value=float(value))
    kind = value["dist"]
    if kind == "empirical":
        return LengthDist("empirical", values=tuple(value["values"]))
    keys = {"fixed": ("value",), "uniform": ("low", "high"), "lognormal": ("mean", "sigma")}[kind]
    return LengthDist(kind, **{k: float(value[k]) for k in keys})


def workload_build(*, workload: dict, seed: int) -> Workload:
    if workload.get("trace"):
        return from_trace(workload["trace"])
    spec = WorkloadSpec(
        num_requests=workload["num_requests"], arrival_rate_per_s=workload["arrival_rate_per_s"],
        arrival=workload.get("arrival", "poisson"), burst_cv=workload.get("burst_cv", 3.0),
        prompt=_dist(workload["prompt_tokens"]), output=_dist(workload["output_tokens"]),
        shared_prefix_tokens=workload.get("shared_prefix_tokens", 0),
        prefix_groups=workload.get("prefix_groups", 1), session_turns=workload.get("session_turns", 1))
    return generate(spec, np.random.default_rng(seed))


SETUP_FIELDS = ("tensor_parallel", "max_num_seqs", "max_num_batched_tokens", "chunked_prefill", "prefix_caching",
                "block_size", "gpu_memory_utilization", "static_batching", "weight_dtype", "kv_dtype",
                "pipeline_parallel", "data_parallel", "expert_parallel", "long_prefill_token_threshold",
                "scheduler_reserve_full_isl", "cuda_graphs")


def workload_check(*, params: dict, w: Workload, max_steps: int = SYNC_MAX_STEPS, max_tokens: int = MAX_TOKENS) -> None:
    """Refuse, before simulating, a workload that is certain to exceed the work caps (SimulationError)."""
    trace = bool(params["workload"].get("trace"))
    total = int((w.prompt_tokens + w.output_tokens).sum())
    if total > max_tokens:
        raise SimulationError("workload.trace" if trace else "workload",
                              f"{total:,} tokens (prompt + output, summed over the requests); at most "
                              f"{max_tokens:,}: use fewer requests or shorter prompts/outputs")
    out = w.output_tokens
    seqs = params.get("max_num_seqs", 256)
    steps = max(int(out.max()), -(-int(out.sum()) // seqs))  # each step emits <= max_num_seqs tokens
    if not params.get("prefix_caching") and not params.get("static_batching"):
        budget = params.get("max_num_batched_tokens", 8192)
        steps = max(steps, -(-int((w.prompt_tokens + out - 1).sum()) // budget))  # <= budget tokens per step
    if steps > max_steps:
        raise SimulationError("workload.trace" if trace else "workload.output_tokens",
                              f"this workload needs at least {steps:,} engine steps; at most {max_steps:,}: use "
                              "fewer requests or shorter outputs, or larger max_num_seqs / max_num_batched_tokens")


def sync_caps(user) -> tuple[int, int]:
    """(engine steps, requests scheduled one at a time) a synchronous request of this user may cost."""
    return (SYNC_MAX_STEPS, SYNC_MAX_ENTRIES) if user.is_authenticated else (ANON_MAX_STEPS, ANON_MAX_ENTRIES)


def run_simulation(*, user, params: dict, max_steps: int | None = None, max_entries: int | None = None,
                   max_tokens: int = MAX_TOKENS, progress: Callable[[float], None] | None = None) -> dict:
    """Validated request → result dict; raises InvalidInput.

    The work is capped (see MAX_TOKENS, sync_caps; a sweep point passes its own caps): a workload bound to exceed
    a cap is refused before simulating, one that turns out to exceed it (e.g. preemption recomputing KV) when it
    does. An anonymous visitor refused by the smaller caps is told that signing in raises them."""
    model = catalog.request_model(user, params)
    gpu = catalog.request_gpu(user, params)
    default_steps, default_entries = sync_caps(user)
    try:
        with engine_errors():
            return _simulate(model, gpu, params, max_steps or default_steps, max_entries or default_entries,
                             max_tokens, progress)
    except InvalidInput as exc:
        capped = f"{default_steps:,}" in exc.message or f"{default_entries:,}" in exc.message
        if max_steps is None and not user.is_authenticated and capped:
            raise InvalidInput(exc.message + (
                f" (the limit for anonymous requests; signed in, up to {SYNC_MAX_STEPS:,} engine steps "
                f"and {SYNC_MAX_ENTRIES:,} requests scheduled one at a time)"), field=exc.field) from exc
        raise


def _simulate(model, gpu, params: dict, max_steps: int, max_entries: int, max_tokens: int = MAX_TOKENS,
              progress: Callable[[float], None] | None = None) -> dict:
    setup = ServingSetup(model, gpu, **{k: params[k] for k in SETUP_FIELDS if k in params})
    w = workload_build(workload=params["workload"], seed=params.get("seed", 0))
    dis = params.get("disaggregation")
    disagg = None
    if dis:
        bw = dis.get("link_bandwidth_gb_per_s")
        disagg = Disaggregation(dis["prefill_replicas"], dis["decode_replicas"], bw * 1e9 if bw else None,
                                dis.get("link_latency_us", 10.0) * 1e-6, dis.get("prefill_tensor_parallel"),
                                dis.get("decode_tensor_parallel"))
        for pool, pool_setup in zip(("prefill", "decode"), disagg.pool_setups(setup), strict=True):
            try:  # each pool at its own TP; an error from a pool's own TP names that field
                check_fits(pool_setup, w, kv_blocks(pool_setup))
            except SimulationError as exc:
                field = f"disaggregation.{pool}_tensor_parallel" if dis.get(f"{pool}_tensor_parallel") else exc.field
                raise SimulationError(field, f"{pool} pool: {exc.message}") from None
    else:
        check_fits(setup, w, kv_blocks(setup))  # a request that can never run is the more useful error
    workload_check(params=params, w=w, max_steps=max_steps, max_tokens=max_tokens)
    slo = SLO(**params.get("slo", {}))
    limit = WorkLimit(max_steps, max_entries)
    if progress is not None:
        finishes = len(w) * (2 if disagg else 1)  # a disaggregated request finishes once in each pool
        limit.on_progress = lambda lim: progress(min(lim.finished / finishes, 0.99))
    result = simulate(setup, w, slo=slo, replicas=params.get("replicas", 1), router=params.get("router", "round_robin"),
                      disaggregation=disagg, limit=limit,
                      trace_steps=params.get("trace_steps", 0))
    result["model"] = {"slug": model.slug, "name": model.name}
    result["gpu"] = {"slug": gpu.slug, "name": gpu.name}
    return result


def point_compute(*, user, request: dict, grid_values: dict) -> tuple[dict, bool]:
    params = point_params(request, grid_values)
    try:
        r = run_simulation(user=user, params=params, max_steps=SWEEP_MAX_STEPS, max_entries=SWEEP_MAX_ENTRIES)
    except InvalidInput as exc:
        return {"feasible": False, "error": f"{exc.field}: {exc.message}"}, False
    slo = params.get("slo", {})
    metrics = {
        "feasible": True,
        "ttft_s": {k: r["ttft_s"][k] for k in ("p50", "p90", "p99")},
        "tpot_s": {k: r["tpot_s"][k] for k in ("p50", "p90", "p99")},
        "e2e_s": {k: r["e2e_s"][k] for k in ("p50", "p99")},
        "output_tokens_per_s": r["throughput"]["output_tokens_per_s"],
        "goodput_requests_per_s": r["goodput"]["requests_per_s"],
        "goodput_fraction": r["goodput"]["fraction"],
        "preemptions": r["preemptions"],
        "gpus": r["cost"]["gpus"],
        "usd_per_hour": r["cost"]["usd_per_hour"],
        "usd_per_million_tokens": r["cost"]["usd_per_million_output_tokens"],
        "longest_request_tokens": _longest(params),
    }
    d = params.get("disaggregation")
    if d:  # the engine's P/D figures: each pool's size and how busy it was, and the KV transfer between them
        busy = [x["busy_fraction"] for x in r["replicas"]]
        n = d["prefill_replicas"]
        metrics["pools"] = {
            "prefill": {"replicas": n, "busy_fraction": sum(busy[:n]) / n},
            "decode": {"replicas": d["decode_replicas"],
                       "busy_fraction": sum(busy[n:]) / max(len(busy) - n, 1)}}
        if "kv_transfer_s" in r:
            metrics["kv_transfer_s"] = r["kv_transfer_s"]
    meets = (r["ttft_s"]["p99"] <= slo.get("ttft_s", SLO.ttft_s) and r["tpot_s"]["p99"] <= slo.get("tpot_s", SLO.tpot_s)
             and r["completed"] == r["num_requests"])
    return metrics, bool(meets)


def _longest(params: dict) -> int:
    w = workload_build(workload=params["workload"], seed=params.get("seed", 0))
    return int((w.prompt_tokens + w.output_tokens).max())
