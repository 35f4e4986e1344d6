"""A design answer graded by the simulators: the same engine/cluster simulation the Lab runs, on the exercise's
traffic, against the exercise's SLOs, constraints and best known answer.

The verdict, in order:
1. **Constraints**: the GPU is one on offer, the GPUs in all are within ``max_gpus``, each replica within
   ``max_gpus_per_replica`` (one node), the price within the budget. Outside them: score 0, with what to change.
2. **Fits**: the weights and a KV cache big enough for the longest request fit each GPU (the engine's own check,
   ``kv_blocks`` and ``check_fits``). If not: score 0, with the first change that fits (``fix_for``).
3. **SLO**: simulated p99 TTFT and p99 TPOT within the exercise's limits, every request served.
4. **Cost**: dollars per million output tokens against the best answer of the release's search (_best.json).

Score: 0 outside the constraints or when it does not fit; ``RUNS_POINTS`` when it runs but misses the SLO;
``RUNS_POINTS + SLO_POINTS + COST_POINTS × min(1, best cost / your cost)`` when it meets it. So the best answer
scores 100 and one meeting the SLO at twice the best cost 80. A grade is deterministic: fixed seed, no clock.
"""

from __future__ import annotations

import hashlib
import json

from django.core.cache import cache

from apps.core.exceptions import InvalidInput
from apps.simulators import catalog
from apps.simulators.api.inputs import ClusterInput
from apps.simulators.engine.engine import SimulationError
from apps.simulators.engine.grid import layout_gpus, pool_tensor_parallel
from apps.simulators.engine.simulate import ServingSetup, check_fits, kv_blocks
from apps.simulators.engine.workload import WorkloadError
from apps.simulators.modeling import ModelInputError
from apps.simulators.modeling.memory import fit
from apps.simulators.simulation import SYNC_MAX_ENTRIES, SYNC_MAX_STEPS, run_simulation, workload_build

RUNS_POINTS, SLO_POINTS, COST_POINTS = 20, 40, 40
SEED = 0
GPUS_PER_NODE = 8
# What a deployment may set, with the engine's defaults (vLLM v0.33.0's, as in the Lab).
DEFAULTS = {"tensor_parallel": 1, "pipeline_parallel": 1, "data_parallel": 1, "expert_parallel": 1, "replicas": 1,
            "router": "round_robin", "weight_dtype": "bf16", "kv_dtype": "bf16", "max_num_seqs": 256,
            "max_num_batched_tokens": 8192, "chunked_prefill": True, "prefix_caching": False, "disaggregation": None}
KNOBS = ("gpu", *DEFAULTS)
LABELS = {"gpu": "GPU", "tensor_parallel": "tensor parallel", "pipeline_parallel": "pipeline parallel",
          "data_parallel": "data parallel", "expert_parallel": "expert parallel", "replicas": "replicas",
          "router": "router", "weight_dtype": "weights", "kv_dtype": "KV cache", "max_num_seqs": "max_num_seqs",
          "max_num_batched_tokens": "max_num_batched_tokens", "chunked_prefill": "chunked prefill",
          "prefix_caching": "prefix caching", "disaggregation": "prefill/decode split"}
# Bump when the grading rules change: cached best-answer metrics are keyed by it.
GRADER_VERSION = 1


def complete(deployment: dict) -> dict:
    """The deployment with every knob it left out at the engine's default."""
    return {"gpu": deployment["gpu"], **{k: deployment.get(k, v) for k, v in DEFAULTS.items()}}


def replica_sizes(d: dict) -> list[int]:
    """GPUs of one replica of each kind the deployment runs: one size, or the prefill and decode pools' (each at its
    own TP)."""
    rest = d["pipeline_parallel"] * d["data_parallel"]
    if not d.get("disaggregation"):
        return [d["tensor_parallel"] * rest]
    return [tp * rest for tp in pool_tensor_parallel(d).values()]


def describe(d: dict, gpu_name: str | None = None) -> str:
    """'2 replicas × TP 4 on NVIDIA H200, FP8 weights, FP8 KV' (a deployment in one line)."""
    split = d.get("disaggregation")
    tp = d["tensor_parallel"]
    pool_tp = pool_tensor_parallel(d) if split else {}
    if split and len(set(pool_tp.values())) > 1:
        shape = (f"{split['prefill_replicas']} prefill × TP {pool_tp['prefill']} + {split['decode_replicas']} decode "
                 f"× TP {pool_tp['decode']} replicas")
        parallel = ""
    else:
        shape = (f"{split['prefill_replicas']} prefill + {split['decode_replicas']} decode replicas" if split else
                 f"{d['replicas']} replica{'s' if d['replicas'] != 1 else ''}")
        parallel = f" × TP {pool_tp.get('prefill', tp)}"
    if d["pipeline_parallel"] > 1:
        parallel += f" × PP {d['pipeline_parallel']}"
    if d["data_parallel"] > 1:
        parallel += f" × DP {d['data_parallel']}"
    if d["expert_parallel"] > 1:
        parallel += f", EP {d['expert_parallel']}"
    extras = [f"{d['weight_dtype'].upper()} weights", f"{d['kv_dtype'].upper()} KV cache"]
    if d["prefix_caching"]:
        extras.append("prefix caching")
    return f"{shape}{parallel} on {gpu_name or d['gpu']}, {', '.join(extras)}"


def constraint_problems(exercise, d: dict, usd_per_hour: float) -> list[dict]:
    c = exercise.constraints
    problems = []
    if d["gpu"] not in c["gpus"]:
        problems.append({"field": "gpu", "message": f"{d['gpu']} is not on offer; choose one of {', '.join(c['gpus'])}"})
    gpus = layout_gpus(d)
    if gpus > c["max_gpus"]:
        problems.append({"field": "replicas", "message": f"{gpus} GPUs in all; at most {c['max_gpus']} are available"})
    per_replica = max(replica_sizes(d))
    per_node = c.get("max_gpus_per_replica", GPUS_PER_NODE)
    if per_replica > per_node:
        problems.append({"field": "tensor_parallel", "message": f"{per_replica} GPUs per replica; a replica may span "
                         f"at most {per_node} (one node)"})
    budget = c.get("budget_usd_per_hour")
    if budget is not None and usd_per_hour > budget + 1e-9:
        problems.append({"field": "gpu", "message": f"${usd_per_hour:,.2f}/hour is over the ${budget:,.2f}/hour budget"})
    return problems


def simulation_params(exercise, d: dict) -> dict:
    """The cluster simulator's validated request for this answer (errors name ``deployment.<knob>``)."""
    knobs = {k: v for k, v in d.items() if v is not None}
    if d.get("disaggregation"):
        knobs.pop("replicas")
    data = {"model": exercise.model_slug, **knobs, "workload": exercise.traffic, "slo": exercise.slo, "seed": SEED}
    request = ClusterInput(data=data)
    if not request.is_valid():
        field, messages = next(iter(request.errors.items()))
        message = messages[0] if isinstance(messages, list) else json.dumps(messages)
        raise InvalidInput(str(message), field=f"deployment.{field}" if field in KNOBS else field)
    return dict(request.validated_data)


def _setup(model, gpu, params: dict) -> ServingSetup:
    keys = ("tensor_parallel", "pipeline_parallel", "data_parallel", "expert_parallel", "max_num_seqs",
            "max_num_batched_tokens", "chunked_prefill", "prefix_caching", "weight_dtype", "kv_dtype")
    return ServingSetup(model, gpu, **{k: params[k] for k in keys})


def fit_problem(model, gpu, params: dict, workload) -> dict | None:
    """Why this deployment cannot hold the model and the longest request (the engine's own checks), or None."""
    try:
        check_fits(_setup(model, gpu, params), workload, kv_blocks(_setup(model, gpu, params)))
    except (SimulationError, WorkloadError, ModelInputError) as exc:
        return {"field": exc.field, "message": exc.message}
    return None


def fix_for(exercise, d: dict, *, user, model, workload) -> str | None:
    """The first change that fits, looked for in the order an engineer would try: more tensor parallelism on the
    same GPU, then FP8 weights and KV cache, then a bigger GPU on offer."""
    per_node = exercise.constraints.get("max_gpus_per_replica", GPUS_PER_NODE)
    tps = [tp for tp in (1, 2, 4, 8) if tp * d["pipeline_parallel"] * d["data_parallel"] <= per_node]
    tries = [{**d, "tensor_parallel": tp} for tp in tps if tp > d["tensor_parallel"]]
    tries += [{**d, "tensor_parallel": tp, "weight_dtype": "fp8", "kv_dtype": "fp8"} for tp in tps
              if tp >= d["tensor_parallel"] and (d["weight_dtype"], d["kv_dtype"]) != ("fp8", "fp8")]
    tries += [{**d, "gpu": slug, "tensor_parallel": tp} for slug in exercise.constraints["gpus"] if slug != d["gpu"]
              for tp in tps]
    for candidate in tries:
        try:
            gpu = catalog.gpu_spec(user=user, slug=candidate["gpu"])
        except InvalidInput:
            continue
        if fit_problem(model, gpu, complete(candidate), workload) is None:
            r = fit(model, gpu, context_tokens=1, tp=candidate["tensor_parallel"], weight_dtype=candidate["weight_dtype"],
                    kv_dtype=candidate["kv_dtype"], pp=candidate["pipeline_parallel"], dp=candidate["data_parallel"],
                    ep=candidate["expert_parallel"])
            changes = ", ".join(f"{LABELS[k]} {_value(candidate[k])}" for k in KNOBS if candidate[k] != d[k])
            return (f"Try {changes}: {r.weights_bytes_per_gpu / 1e9:,.1f} GB of weights per GPU leaves "
                    f"{float(r.kv_budget_bytes_per_gpu) / 1e9:,.1f} GB for the KV cache.")
    return None


def _value(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, dict):
        return f"{value['prefill_replicas']} prefill + {value['decode_replicas']} decode"
    if value is None:
        return "none"
    return str(value).upper() if str(value) in ("bf16", "fp16", "fp8", "int8", "int4", "fp4") else str(value)


def simulate(exercise, d: dict, *, user) -> dict:
    """Metrics of one deployment on the exercise's traffic (the same caps for everybody: a grade never depends on
    who asks). A run past the synchronous caps is refused (400) rather than graded."""
    params = simulation_params(exercise, d)
    try:
        r = run_simulation(user=user, params=params, max_steps=SYNC_MAX_STEPS, max_entries=SYNC_MAX_ENTRIES)
    except InvalidInput as exc:
        if not (exc.field or "").startswith("workload"):
            raise
        # The exercise's traffic is fixed: what made the run too long is the deployment's batching.
        raise InvalidInput(f"{exc.message} (on this exercise's traffic; this deployment batches too little to be "
                           "graded)", field="deployment.max_num_seqs") from exc
    return {"ttft_p50_s": r["ttft_s"]["p50"], "ttft_p99_s": r["ttft_s"]["p99"], "tpot_p50_s": r["tpot_s"]["p50"],
            "tpot_p99_s": r["tpot_s"]["p99"], "completed": r["completed"], "num_requests": r["num_requests"],
            "preemptions": r["preemptions"], "output_tokens_per_s": r["throughput"]["output_tokens_per_s"],
            "gpus": r["cost"]["gpus"], "usd_per_hour": r["cost"]["usd_per_hour"],
            "usd_per_million_tokens": r["cost"]["usd_per_million_output_tokens"]}


def meets_slo(exercise, m: dict) -> bool:
    return (m["ttft_p99_s"] <= exercise.slo["ttft_s"] and m["tpot_p99_s"] <= exercise.slo["tpot_s"]
            and m["completed"] == m["num_requests"])


def _duration(seconds: float) -> str:
    return f"{seconds:,.1f} s" if seconds >= 10 else f"{seconds * 1e3:,.1f} ms" if seconds < 0.1 else f"{seconds * 1e3:,.0f} ms"


def _share(ratio: float) -> str:
    return f"{ratio:.0%} of the limit" if ratio < 10 else f"{ratio:,.0f}× the limit"


def binding(exercise, m: dict) -> dict:
    """The constraint closest to (or furthest past) its limit, in words."""
    c = exercise.constraints
    ratios = {"ttft": (m["ttft_p99_s"] / exercise.slo["ttft_s"],
                       f"p99 TTFT {_duration(m['ttft_p99_s'])} against {_duration(exercise.slo['ttft_s'])}"),
              "tpot": (m["tpot_p99_s"] / exercise.slo["tpot_s"],
                       f"p99 TPOT {_duration(m['tpot_p99_s'])} against {_duration(exercise.slo['tpot_s'])}")}
    if meets_slo(exercise, m):
        ratios["gpus"] = (m["gpus"] / c["max_gpus"], f"{m['gpus']} of {c['max_gpus']} GPUs")
        if c.get("budget_usd_per_hour"):
            ratios["budget"] = (m["usd_per_hour"] / c["budget_usd_per_hour"],
                                f"${m['usd_per_hour']:,.2f} of ${c['budget_usd_per_hour']:,.2f} an hour")
    if m["completed"] < m["num_requests"]:
        ratios["completion"] = (float("inf"), f"{m['num_requests'] - m['completed']} of {m['num_requests']} "
                                              "requests never finished")
    name, (ratio, text) = max(ratios.items(), key=lambda item: item[1][0])
    return {"constraint": name, "ratio": None if ratio == float("inf") else round(ratio, 3),
            "detail": text + (f" ({_share(ratio)})" if ratio != float("inf") else "")}


def _fingerprint(exercise, d: dict, user) -> str:
    gpu = catalog.gpu_spec(user=user, slug=d["gpu"])
    body = json.dumps([GRADER_VERSION, exercise.model_slug, exercise.traffic, exercise.slo, d, gpu.price_per_hour_usd],
                      sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:24]


def best_metrics(exercise, *, user) -> dict | None:
    """The best known answer's deployment and metrics (simulated once, then cached), or None if there is none."""
    deployment = (exercise.best or {}).get("deployment")
    if not deployment:
        return None
    d = complete(deployment)
    key = f"design-best:{exercise.slug}:{_fingerprint(exercise, d, user)}"
    found = cache.get(key)
    if found is None:
        found = {"deployment": d, "metrics": simulate(exercise, d, user=user)}
        cache.set(key, found, 7 * 24 * 3600)
    return found


def differences(d: dict, best: dict) -> list[str]:
    return [f"{LABELS[k]}: yours {_value(d[k])}, best {_value(best[k])}" for k in KNOBS if d[k] != best[k]]


def grade(exercise, deployment: dict, *, user) -> dict:
    d = complete(deployment)
    model = catalog.model_spec(user=user, slug=exercise.model_slug)
    gpu = catalog.gpu_spec(user=user, slug=d["gpu"], field="deployment.gpu")
    usd_per_hour = layout_gpus(d) * gpu.price_per_hour_usd
    out: dict = {"deployment": d, "summary": describe(d, gpu.name), "gpus": layout_gpus(d), "usd_per_hour": usd_per_hour,
                 "slo": exercise.slo, "metrics": None, "binding": None, "fix": None, "best": None, "differences": []}
    problems = constraint_problems(exercise, d, usd_per_hour)
    if problems:
        return {**out, "verdict": "outside_constraints", "score": 0, "problems": problems,
                "headline": "Outside the exercise's constraints: " + "; ".join(p["message"] for p in problems) + "."}
    params = simulation_params(exercise, d)
    workload = workload_build(workload=params["workload"], seed=SEED)
    problem = fit_problem(model, gpu, params, workload)
    if problem:
        return {**out, "verdict": "does_not_fit", "score": 0, "problems": [problem],
                "fix": fix_for(exercise, d, user=user, model=model, workload=workload),
                "headline": f"Does not fit: {problem['message']}."}
    metrics = simulate(exercise, d, user=user)
    best = best_metrics(exercise, user=user)
    out.update(metrics=metrics, binding=binding(exercise, metrics), problems=[])
    if best:
        out["best"] = {"summary": describe(best["deployment"], catalog.gpu_spec(user=user, slug=best["deployment"]["gpu"]).name),
                       **best}
        out["differences"] = differences(d, best["deployment"])
    if not meets_slo(exercise, metrics):
        return {**out, "verdict": "misses_slo", "score": RUNS_POINTS,
                "headline": f"Runs, but misses the SLO: {out['binding']['detail']}."}
    cost = metrics["usd_per_million_tokens"]
    best_cost = best["metrics"]["usd_per_million_tokens"] if best else cost
    ratio = min(1.0, best_cost / cost) if cost > 0 else 1.0
    score = RUNS_POINTS + SLO_POINTS + round(COST_POINTS * ratio)
    if cost <= best_cost + 1e-9:
        headline = (f"Meets the SLO at ${cost:,.2f} per million output tokens: as cheap as the best answer the "
                    "search found" + (" (or cheaper)." if cost < best_cost - 1e-9 else "."))
    else:
        headline = (f"Meets the SLO at ${cost:,.2f} per million output tokens, {cost / best_cost:,.2f}× the best "
                    f"answer's ${best_cost:,.2f}.")
    return {**out, "verdict": "meets_slo", "score": score, "cost_ratio": round(cost / best_cost, 3) if best_cost else None,
            "headline": headline}


def search_grid(exercise) -> list[dict]:
    """Every deployment of the exercise's search grid (``search``: knob → values; ``disaggregation`` adds split
    layouts of each point), inside the exercise's constraints is checked later."""
    grid = dict(exercise.search)
    splits = grid.pop("disaggregation", None) or []
    points: list[dict] = [{}]
    for knob, values in grid.items():
        points = [{**p, knob: v} for p in points for v in values]
    out = [complete({"tensor_parallel": 1, **p}) for p in points]
    out += [{**p, "replicas": 1, "disaggregation": dict(split)} for p in out if p["replicas"] == 1 for split in splits]
    return out


def search_best(exercise, *, user, report=None) -> dict | None:
    """The cheapest deployment of the grid meeting the SLO inside the constraints.

    Points are simulated in order of price per hour. At a fixed arrival rate every deployment that keeps up serves
    the same tokens, so cost per token follows price; once one meets the SLO only points up to 10 % dearer (a
    deployment that finishes sooner serves more tokens per second) can still beat it, and the rest are skipped.
    """
    model = catalog.model_spec(user=user, slug=exercise.model_slug)
    priced = []
    for d in search_grid(exercise):
        gpu = catalog.gpu_spec(user=user, slug=d["gpu"])
        usd = layout_gpus(d) * gpu.price_per_hour_usd
        if not constraint_problems(exercise, d, usd):
            priced.append((usd, d, gpu))
    priced.sort(key=lambda item: (item[0], json.dumps(item[1], sort_keys=True)))
    best, ceiling = None, float("inf")
    for usd, d, gpu in priced:
        if usd > ceiling:
            break
        try:
            params = simulation_params(exercise, d)
            if fit_problem(model, gpu, params, workload_build(workload=params["workload"], seed=SEED)):
                continue
            m = simulate(exercise, d, user=user)
        except InvalidInput:
            continue
        if report:
            report(d, m)
        if meets_slo(exercise, m) and (best is None or m["usd_per_million_tokens"] < best["metrics"]["usd_per_million_tokens"]):
            best = {"deployment": d, "metrics": m}
            ceiling = min(ceiling, usd * 1.1)
    return best

