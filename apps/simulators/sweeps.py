"""Engine simulations for the API and configuration sweeps run as Celery chunk tasks.

A sweep is the Cartesian product of its grid (knob → list of values) over a base
configuration. The points are cut into chunks; every chunk is one Celery task, all of
them sent as a group, so every worker takes chunks. A chunk:
1. returns at once if the job is no longer queued/running (cancelled, failed, done);
2. computes its points (heartbeat and a status check between points);
3. in one transaction, with the job row locked: if none of its points is stored yet it
   bulk-inserts them (ignore_conflicts on the unique (job, index)) and increments
   done_chunks/done_points with F(); a redelivered chunk finds its points and stops,
   so a point is written and counted exactly once;
4. the chunk whose increment makes done_chunks == total_chunks computes the Pareto
   frontier and the recommendation and marks the job succeeded.
A watchdog fails queued/running jobs without a heartbeat for SWEEP_WATCHDOG_TIMEOUT_S
(a lost worker), so no job stays running forever; it runs when jobs are read, before
each chunk and as a Celery task.
A point meets the SLO when its p99 TTFT and p99 TPOT are within the SLO.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import logging
import math
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from apps.simulators.engine.engine import SimulationError, WorkLimit
from apps.simulators.engine.metrics import SLO
from apps.simulators.engine.simulate import Disaggregation, ServingSetup, check_fits, kv_blocks, simulate
from apps.simulators.engine.workload import LengthDist, Workload, WorkloadError, WorkloadSpec, from_trace, generate
from apps.simulators.modeling import ModelInputError, load_gpus, load_models, vllm_serve_config
from apps.simulators.modeling.specs import GPUSpec, ModelSpec
from apps.simulators.models import GPU, ModelConfig, SweepJob, SweepPoint, SweepStatus

logger = logging.getLogger(__name__)

GRID_KEYS = ("gpu", "tensor_parallel", "replicas", "max_num_seqs", "max_num_batched_tokens", "chunked_prefill",
             "router", "weight_dtype")
MAX_POINTS = 10_000
MAX_ACTIVE_SWEEPS = 3
ACTIVE = (SweepStatus.QUEUED, SweepStatus.RUNNING)
# Work caps. A synchronous request must answer within a second or two on a small machine, so its
# workload is bounded up front (tokens; a lower bound on steps) and while it runs (engine steps and
# requests scheduled one at a time, both summed over all replicas and pools). Measured on 2 busy
# cores: a step costs 3-8 us, a request scheduled one at a time 2-5 us, so the heaviest legal request
# answers in about a second. A sweep point runs in a worker and may use more.
MAX_TOKENS = 4_000_000          # Σ (prompt + output) over the workload's requests
SYNC_MAX_STEPS = 120_000
SYNC_MAX_ENTRIES = 200_000
SWEEP_MAX_STEPS = 600_000
SWEEP_MAX_ENTRIES = 1_000_000


class TooManySweeps(Exception):
    pass


# ---- catalog ----------------------------------------------------------------------------
@functools.cache
def _yaml_models() -> dict[str, ModelSpec]:
    return load_models()


@functools.cache
def _yaml_gpus() -> dict[str, GPUSpec]:
    return load_gpus()


def model_spec(*, slug: str | None = None, config: dict | None = None) -> ModelSpec:
    if config is not None:
        row = {"slug": "custom", "name": "Custom model", "hf_id": "custom/model", "source": "inline",
               "tie_word_embeddings": False, **config}
        try:
            return ModelSpec(**row)
        except ModelInputError as exc:
            raise SimulationError(f"config.{exc.field}", exc.message)
        except (TypeError, ValueError) as exc:
            raise SimulationError("config", f"not a valid model configuration ({exc})")
    row = ModelConfig.objects.published().filter(slug=slug).first()
    if row is not None:
        return ModelSpec(**{f.name: getattr(row, f.name) for f in dataclasses.fields(ModelSpec)})
    found = _yaml_models().get(slug or "")
    if found is None:
        raise SimulationError("model", f"unknown model {slug!r}")
    return found


def gpu_spec(*, slug: str | None = None, spec: dict | None = None, field: str = "gpu") -> GPUSpec:
    if spec is not None:
        row = {"slug": "custom", "name": "Custom GPU", "vendor": "nvidia", "source": "inline",
               "int8_dense_ops": spec.get("bf16_dense_flops", 1.0) * 2, "price_per_hour_usd": 2.0, **spec}
        try:
            return GPUSpec(**row)
        except ModelInputError as exc:
            raise SimulationError(f"gpu_spec.{exc.field}", exc.message)
        except (TypeError, ValueError) as exc:
            raise SimulationError("gpu_spec", f"not a valid GPU specification ({exc})")
    row = GPU.objects.published().filter(slug=slug).first()
    if row is not None:
        return GPUSpec(**{f.name: getattr(row, f.name) for f in dataclasses.fields(GPUSpec)})
    found = _yaml_gpus().get(slug or "")
    if found is None:
        raise SimulationError(field, f"unknown GPU {slug!r}")
    return found


# ---- one simulation ---------------------------------------------------------------------
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
                "block_size", "gpu_memory_utilization", "static_batching", "weight_dtype", "kv_dtype")


def workload_check(*, params: dict, w: Workload, max_steps: int = SYNC_MAX_STEPS) -> None:
    """Refuse, before simulating, a workload that is certain to exceed the work caps (SimulationError)."""
    trace = bool(params["workload"].get("trace"))
    total = int((w.prompt_tokens + w.output_tokens).sum())
    if total > MAX_TOKENS:
        raise SimulationError("workload.trace" if trace else "workload",
                              f"{total:,} tokens (prompt + output, summed over the requests); at most "
                              f"{MAX_TOKENS:,}: use fewer requests or shorter prompts/outputs")
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


def simulation_run(*, params: dict, max_steps: int = SYNC_MAX_STEPS, max_entries: int = SYNC_MAX_ENTRIES) -> dict:
    """Validated request (see engine_serializers) → result dict. Raises SimulationError/WorkloadError.

    The work is capped (see MAX_TOKENS, SYNC_MAX_*): a workload bound to exceed a cap is refused before
    simulating, one that turns out to exceed it (e.g. preemption recomputing KV) when it does."""
    model = model_spec(slug=params.get("model"), config=params.get("config"))
    gpu = gpu_spec(slug=params.get("gpu"), spec=params.get("gpu_spec"))
    setup = ServingSetup(model, gpu, **{k: params[k] for k in SETUP_FIELDS if k in params})
    w = workload_build(workload=params["workload"], seed=params.get("seed", 0))
    check_fits(setup, w, kv_blocks(setup))  # a request that can never run is the more useful error
    workload_check(params=params, w=w, max_steps=max_steps)
    slo = SLO(**params.get("slo", {}))
    dis = params.get("disaggregation")
    disagg = None
    if dis:
        bw = dis.get("link_bandwidth_gb_per_s")
        disagg = Disaggregation(dis["prefill_replicas"], dis["decode_replicas"], bw * 1e9 if bw else None,
                                dis.get("link_latency_us", 10.0) * 1e-6)
    result = simulate(setup, w, slo=slo, replicas=params.get("replicas", 1), router=params.get("router", "round_robin"),
                      disaggregation=disagg, limit=WorkLimit(max_steps, max_entries))
    result["model"] = {"slug": model.slug, "name": model.name}
    result["gpu"] = {"slug": gpu.slug, "name": gpu.name}
    return result


# ---- grid ---------------------------------------------------------------------------------
def grid_size(grid: dict) -> int:
    return math.prod(len(v) for v in grid.values()) if grid else 1


def grid_points(grid: dict) -> list[dict]:
    keys = [k for k in GRID_KEYS if k in grid]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(grid[k] for k in keys))]


def chunk_size(total: int) -> int:
    return max(1, min(25, math.ceil(total / 16)))


def chunk_bounds(job: SweepJob, chunk: int) -> tuple[int, int]:
    size = chunk_size(job.total_points)
    return chunk * size, min(job.total_points, (chunk + 1) * size)


def point_params(request: dict, grid_values: dict) -> dict:
    base = {k: v for k, v in request.items() if k not in ("grid",)}
    return {**base, **grid_values}


def point_compute(request: dict, grid_values: dict) -> tuple[dict, bool]:
    params = point_params(request, grid_values)
    try:
        r = simulation_run(params=params, max_steps=SWEEP_MAX_STEPS, max_entries=SWEEP_MAX_ENTRIES)
    except (SimulationError, WorkloadError, ModelInputError) as exc:
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
    meets = (r["ttft_s"]["p99"] <= slo.get("ttft_s", SLO.ttft_s) and r["tpot_s"]["p99"] <= slo.get("tpot_s", SLO.tpot_s)
             and r["completed"] == r["num_requests"])
    return metrics, bool(meets)


def _longest(params: dict) -> int:
    w = workload_build(workload=params["workload"], seed=params.get("seed", 0))
    return int((w.prompt_tokens + w.output_tokens).max())


# ---- jobs -----------------------------------------------------------------------------------
def watchdog_timeout_s() -> float:
    return float(getattr(settings, "SWEEP_WATCHDOG_TIMEOUT_S", 600))


def sweep_watchdog(*, now: datetime, timeout_s: float | None = None, job_ids: list | None = None) -> int:
    """Fail active jobs with no heartbeat (or, if never started, no start) within the timeout."""
    timeout = watchdog_timeout_s() if timeout_s is None else timeout_s
    cutoff = now - timedelta(seconds=timeout)
    qs = SweepJob.objects.filter(status__in=ACTIVE).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=cutoff))
    if job_ids is not None:
        qs = qs.filter(id__in=job_ids)
    return qs.update(status=SweepStatus.FAILED, finished_at=now,
                     error=f"No progress for more than {timeout:g} s: a worker was probably lost. "
                           "Points computed so far are kept.")


def sweep_job_create(*, user, request: dict) -> SweepJob:
    from apps.core.services import ensure_broker_available

    sweep_watchdog(now=timezone.now(), job_ids=list(user.sweeps.filter(status__in=ACTIVE).values_list("id", flat=True)))
    if user.sweeps.filter(status__in=ACTIVE).count() >= MAX_ACTIVE_SWEEPS:
        raise TooManySweeps(f"You already have {MAX_ACTIVE_SWEEPS} sweeps queued or running; "
                            "wait for one to finish or cancel one.")
    ensure_broker_available()
    total = grid_size(request["grid"])
    chunks = math.ceil(total / chunk_size(total))
    job = SweepJob.objects.create(user=user, request=request, total_points=total, total_chunks=chunks)
    transaction.on_commit(lambda: sweep_launch(job_id=job.id, chunks=chunks))
    return job


def chunk_task_id(job_id, chunk: int) -> str:
    return f"sweep-{job_id}-{chunk}"


def sweep_launch(*, job_id, chunks: int) -> None:
    from celery import group

    from apps.simulators.tasks import sweep_chunk_task

    queue = getattr(settings, "SWEEPS_QUEUE", None)
    options = {"queue": queue} if queue else {}
    sigs = [sweep_chunk_task.si(str(job_id), i).set(task_id=chunk_task_id(job_id, i), **options) for i in range(chunks)]
    try:
        group(sigs).apply_async()
    except Exception as exc:  # broker vanished between the check and the send
        logger.exception("sweep %s: could not enqueue", job_id)
        SweepJob.objects.filter(id=job_id, status__in=ACTIVE).update(
            status=SweepStatus.FAILED, error=f"Could not queue the sweep: {exc}", finished_at=timezone.now())


def _beat(job_id, now: datetime) -> str | None:
    """Heartbeat; returns the job's status (None if deleted)."""
    SweepJob.objects.filter(id=job_id, status=SweepStatus.RUNNING).update(heartbeat_at=now)
    return SweepJob.objects.filter(id=job_id).values_list("status", flat=True).first()


def sweep_chunk_run(*, job_id, chunk: int) -> int:
    """Compute and store one chunk; returns the number of points stored by this call."""
    now = timezone.now()
    sweep_watchdog(now=now)
    job = SweepJob.objects.filter(id=job_id).first()
    if job is None or job.status not in ACTIVE:
        return 0
    SweepJob.objects.filter(id=job_id, status=SweepStatus.QUEUED).update(
        status=SweepStatus.RUNNING, started_at=now, heartbeat_at=now)
    lo, hi = chunk_bounds(job, chunk)
    if SweepPoint.objects.filter(job_id=job_id, index__gte=lo, index__lt=hi).exists():
        return 0
    combos = grid_points(job.request["grid"])[lo:hi]
    rows = []
    for offset, values in enumerate(combos):
        if _beat(job_id, timezone.now()) not in ACTIVE:
            return 0
        metrics, meets = point_compute(job.request, values)
        rows.append(SweepPoint(job_id=job_id, index=lo + offset, params=values, metrics=metrics, meets_slo=meets))
    return _store_chunk(job_id, lo, hi, rows)


def _store_chunk(job_id, lo: int, hi: int, rows: list[SweepPoint]) -> int:
    with transaction.atomic():
        job = SweepJob.objects.select_for_update().get(id=job_id)
        if job.status not in ACTIVE:
            return 0
        if SweepPoint.objects.filter(job_id=job_id, index__gte=lo, index__lt=hi).exists():
            return 0  # a redelivered copy of this chunk got here first
        SweepPoint.objects.bulk_create(rows, ignore_conflicts=True)
        SweepJob.objects.filter(id=job_id).update(done_chunks=F("done_chunks") + 1,
                                                  done_points=F("done_points") + len(rows), heartbeat_at=timezone.now())
        job.refresh_from_db(fields=["done_chunks", "total_chunks"])
        if job.done_chunks >= job.total_chunks:
            sweep_finalize(job=job)
    return len(rows)


def pareto_frontier(points: list[dict]) -> list[dict]:
    """Points not dominated in (usd_per_million_tokens, p99 TTFT), both minimised; sorted by cost."""
    ordered = sorted(points, key=lambda p: (p["metrics"]["usd_per_million_tokens"], p["metrics"]["ttft_s"]["p99"]))
    frontier: list[dict] = []
    best_ttft = math.inf
    for p in ordered:
        ttft = p["metrics"]["ttft_s"]["p99"]
        if ttft < best_ttft:
            frontier.append(p)
            best_ttft = ttft
    return frontier


def sweep_finalize(*, job: SweepJob) -> None:
    good = [{"index": i, "params": params, "metrics": m}
            for i, params, m in job.points.filter(meets_slo=True).values_list("index", "params", "metrics")]
    frontier = pareto_frontier(good)
    job.pareto = [{"index": p["index"], "usd_per_million_tokens": p["metrics"]["usd_per_million_tokens"],
                   "ttft_p99_s": p["metrics"]["ttft_s"]["p99"]} for p in frontier]
    job.recommendation = _recommend(job.request, frontier[0]) if frontier else None
    job.status = SweepStatus.SUCCEEDED
    job.finished_at = timezone.now()
    job.save(update_fields=["pareto", "recommendation", "status", "finished_at"])


def _recommend(request: dict, best: dict) -> dict:
    params = point_params(request, best["params"])
    model = model_spec(slug=params.get("model"), config=params.get("config"))
    gpu = gpu_spec(slug=params.get("gpu"), spec=params.get("gpu_spec"))
    longest = best["metrics"]["longest_request_tokens"]
    max_len = min(model.max_position_embeddings, max(2048, 1 << (longest - 1).bit_length()))
    try:
        serve = vllm_serve_config(
            model, gpu, tp=params.get("tensor_parallel", 1), max_model_len=max_len,
            gpu_memory_utilization=params.get("gpu_memory_utilization", 0.9),
            weight_dtype=params.get("weight_dtype", "bf16"), kv_dtype=params.get("kv_dtype", "bf16"),
            max_num_seqs=params.get("max_num_seqs", 256),
            max_num_batched_tokens=params.get("max_num_batched_tokens", 8192),
            enable_prefix_caching=params.get("prefix_caching", False))
        command, flags = serve.command, serve.flags
    except ModelInputError as exc:
        command, flags = "", [{"flag": "", "value": None, "why": exc.message}]
    replicas = params.get("replicas", 1)
    return {
        "index": best["index"], "params": best["params"], "metrics": best["metrics"],
        "command": command, "flags": flags, "replicas": replicas, "router": params.get("router", "round_robin"),
        "reason": (f"Cheapest configuration meeting the SLO: ${best['metrics']['usd_per_million_tokens']:.3f} per "
                   f"million output tokens at p99 TTFT {best['metrics']['ttft_s']['p99'] * 1e3:,.0f} ms on "
                   f"{replicas} × {params.get('tensor_parallel', 1)} × {gpu.name}"
                   + (f", {replicas} replicas behind a {params.get('router', 'round_robin')} router" if replicas > 1 else "")),
    }


def sweep_job_fail(*, job_id, reason: str) -> int:
    return SweepJob.objects.filter(id=job_id, status__in=ACTIVE).update(
        status=SweepStatus.FAILED, error=reason[:2000], finished_at=timezone.now())


def sweep_job_get(*, user, job_id) -> SweepJob:
    from django.shortcuts import get_object_or_404

    sweep_watchdog(now=timezone.now(), job_ids=[job_id])
    return get_object_or_404(SweepJob, id=job_id, user=user)


def sweep_job_list(*, user):
    sweep_watchdog(now=timezone.now(), job_ids=list(user.sweeps.filter(status__in=ACTIVE).values_list("id", flat=True)))
    return SweepJob.objects.filter(user=user).order_by("-created_at")


def sweep_job_cancel(*, user, job_id) -> SweepJob:
    from django.shortcuts import get_object_or_404

    job = get_object_or_404(SweepJob, id=job_id, user=user)
    updated = SweepJob.objects.filter(id=job.id, status__in=ACTIVE).update(
        status=SweepStatus.CANCELLED, finished_at=timezone.now())
    if updated:
        _revoke(job)
    job.refresh_from_db()
    return job


def _revoke(job: SweepJob) -> None:
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return
    try:
        from config.celery import app

        app.control.revoke([chunk_task_id(job.id, i) for i in range(job.total_chunks)])
    except Exception:  # revoking is best effort: chunks also check the status before computing
        logger.warning("sweep %s: revoke failed", job.id, exc_info=True)

