"""Stage one of a sweep: every grid point priced by the closed-form models in one vectorized pass.

The screen answers, per point, what the discrete-event engine would roughly answer (p99 TTFT, TPOT, $ per million
output tokens, whether the SLO is met) in microseconds instead of seconds, so that the engine only has to run on
the points near the frontier (apps.simulators.engine.grid.select_candidates). Feasibility is not estimated: it is
the engine's own check (simulate.kv_blocks, check_fits), so a point the screen calls infeasible is one the engine
refuses too.

Per replica of TP GPUs (the workload's requests are shared evenly over the replicas, arrival rate λ_r = λ / R),
with P̄ and Ō the workload's mean prompt and output tokens, P₉₉ its 99th-percentile prompt:
1. A mixed step t(b, k) of b decodes at the mean context P̄ + Ō/2 plus k prefill tokens, from roofline.step_time's
   terms (the engine's step cost, expected efficiencies): decode-step compute, bytes, communication and overhead
   over a batch axis, plus k × the prefill's per-token compute, streamed bytes (the weights are read once per step)
   and communication: t = max(C_d(b) + k·c, M_d(b) + k·m) + X_d(b) + k·x + O_d(b).
2. A prompt's prefill takes n = ⌈P / (M − b)⌉ steps of t(b, P/n) (M = max_num_batched_tokens; one step without
   chunked prefill): T_pf(b). Prefill steps come in lumps (a whole prompt at a time, as the engine schedules
   them), so they take the share λ_r · T_pf of the replica's time and decode-only steps of t(b, 0) the rest:
   TPOT(b) = 1 / (λ_r · n + (1 − λ_r · T_pf) / t(b, 0)).
3. Batch ceiling b_max = min(max_num_seqs, KV tokens / (P̄ + Ō)); capacity μ solves Little's law at the ceiling,
   b_max = μ · Ō · TPOT_μ(b_max); ρ = λ_r / μ. A replica is overloaded, running at b_max with a queue for slots,
   when ρ ≥ 1 and its N_r requests outnumber b_max (with fewer, every request has a slot: the workload ends before
   a steady state past capacity could form). Otherwise the operating batch solves b = λ_r · Ō · TPOT(b)
   (bisection on [0, min(b_max, N_r)]).
4. p99 TTFT = TPOT (the step already running) + T_pf at P₉₉ + a burst's prompts ahead, T_pf · (ln 100 / 2) ·
   f / (1 − f) at prefill utilisation f = λ_r · (T_pf − n · t(b, 0)) (prompts waiting together share a step, as
   the budget allows, so a prompt adds only its prefill's excess over the decode steps it rides on), + a wait for free slots when the batch's 99th percentile
   (Poisson around b: b + 2.33 √b) passes b_max, (excess) · Ō · TPOT / b_max. Overloaded, the queue grows over the
   arrival span instead: + N_r / μ − span.
5. Makespan = max(span, N_r / μ) + TPOT + T_pf(P₉₉) + O_max · t(max(b/2, 1), 0) (the longest output finishes
   last, after arrivals stop, while the batch drains: at about half the running batch and no prefills); output
   tokens/s = N · Ō / makespan; $ per million output tokens = R · TP · $/GPU-h / 3600 / (tokens/s) · 10⁶ — the
   engine's cost formula (simulate._usd_per_million).
Measured against the engine by benchmarks/screen_accuracy.py (72 points: 3 GPUs × TP 1/2/4 × 1-2 replicas × 4 batch
limits, 200 requests): the two agree on meeting the SLO at 68 points; on the 38 the engine says meet it, the
screen's p99 TTFT is 0.61-3.29 × the engine's (geometric mean 1.12), TPOT 0.62-0.94 × (0.82), $ per million tokens
1.00-1.05 × (1.01). Before the drain and shared-step corrections above, $ was 1.01-1.45 × (1.11), TTFT 1.20 × on
average, and an L40S point that meets the SLO was screened out as overloaded.
The router, static batching and prefix caching are not modelled: the engine tells them apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..modeling.errors import ModelInputError
from ..modeling.memory import fit, tp_is_valid
from ..modeling.roofline import SERIAL_PARTS, step_time
from ..modeling.specs import GPUSpec, ModelSpec
from .engine import SimulationError
from .metrics import SLO
from .simulate import ServingSetup, check_fits, kv_blocks, kv_bytes_per_token
from .workload import Workload

LN_100 = math.log(100.0)
BATCHES = np.unique(np.round(np.geomspace(1, 4096, 64))).astype(float)  # the batch axis of t_d(b)
SETUP_KNOBS = ("tensor_parallel", "max_num_seqs", "max_num_batched_tokens", "chunked_prefill", "prefix_caching",
               "block_size", "gpu_memory_utilization", "static_batching", "weight_dtype", "kv_dtype",
               "pipeline_parallel", "data_parallel", "expert_parallel", "long_prefill_token_threshold",
               "scheduler_reserve_full_isl")
LAYOUT = (("pipeline_parallel", "pp"), ("data_parallel", "dp"), ("expert_parallel", "ep"))


@dataclass(frozen=True)
class WorkloadStats:
    requests: int
    span_s: float
    prompt_mean: float
    prompt_p99: float
    output_mean: float
    output_max: float

    @classmethod
    def of(cls, w: Workload) -> WorkloadStats:
        arrivals = w.arrival_s
        return cls(len(arrivals), float(arrivals.max() - arrivals.min()), float(w.prompt_tokens.mean()),
                   float(np.percentile(w.prompt_tokens, 99)), float(w.output_tokens.mean()), float(w.output_tokens.max()))


@dataclass
class Screen:
    """Per-point arrays, in the order of the points screened."""

    feasible: np.ndarray
    error: list
    ttft_p99_s: np.ndarray
    tpot_p99_s: np.ndarray
    usd_per_million_tokens: np.ndarray
    utilization: np.ndarray
    meets_slo: np.ndarray
    overloaded: np.ndarray  # requests queue for batch slots (utilization ≥ 1 and more requests than the ceiling)

    def point(self, i: int) -> dict:
        if not self.feasible[i]:
            return {"feasible": False, "error": self.error[i]}
        return {"feasible": True, "ttft_p99_s": float(self.ttft_p99_s[i]), "tpot_p99_s": float(self.tpot_p99_s[i]),
                "usd_per_million_tokens": float(self.usd_per_million_tokens[i]),
                "utilization": float(self.utilization[i]), "meets_slo": bool(self.meets_slo[i])}


def screen_points(model: ModelSpec, gpus: dict, points: list[dict], w: Workload, slo: SLO) -> Screen:
    """Screen `points` (full parameter dicts: the base request with a grid point laid over it); `gpus` maps each
    point's `gpu` value (None for an inline spec) to its GPUSpec."""
    n = len(points)
    ws = WorkloadStats.of(w)
    res = Screen(feasible=np.zeros(n, bool), error=[None] * n, ttft_p99_s=np.full(n, np.inf),
                 tpot_p99_s=np.full(n, np.inf), usd_per_million_tokens=np.full(n, np.inf),
                 utilization=np.full(n, np.inf), meets_slo=np.zeros(n, bool), overloaded=np.ones(n, bool))
    groups: dict[tuple, list[int]] = {}
    for i, p in enumerate(points):
        key = (p.get("gpu"), p.get("tensor_parallel", 1), p.get("weight_dtype", "bf16"), p.get("kv_dtype", "bf16"),
               tuple(p.get(name, 1) for name, _ in LAYOUT))
        groups.setdefault(key, []).append(i)
    for (gpu_key, tp, wdt, kvdt, degrees), idx in groups.items():
        layout = {short: value for (_, short), value in zip(LAYOUT, degrees, strict=True)}
        try:
            _screen_group(res, model, gpus[gpu_key], tp, wdt, kvdt, [points[i] for i in idx], np.asarray(idx), ws, w,
                          layout)
        except (SimulationError, ModelInputError) as exc:  # the whole group, as the engine refuses each of its points
            res.feasible[idx] = False
            for i in idx:
                res.error[i] = f"{exc.field}: {exc.message}"
    ok = res.feasible
    res.meets_slo = ok & ~res.overloaded & (res.ttft_p99_s <= slo.ttft_s) & (res.tpot_p99_s <= slo.tpot_s)
    return res


class _StepModel:
    """Mixed step time t(b, k): b decodes at the mean context plus k prefill tokens, from roofline.step_time's parts
    (weights are read once per step, so prefill tokens add their compute, KV writes and activations only). Each part
    of a layer keeps its own roofline as in step time and the engine: t = Σ_parts max(C_p(b) + k·c_p, M_p(b) + k·m_p)
    (the routed experts add the two, roofline.SERIAL_PARTS) + X_d(b) + k·x + O_d(b), vectorized over b and k. With
    data parallelism b is the deployment's batch, shared by its DP ranks (b / DP each, as in the engine)."""

    def __init__(self, model, gpu, tp, wdt, kvdt, p_mean, o_mean, layout) -> None:
        common = dict(tp=tp, weight_dtype=wdt, kv_dtype=kvdt, **layout)
        d = step_time(model, gpu, batch=BATCHES / layout["dp"], context_tokens=p_mean + o_mean / 2, **common)
        self.decode = {name: (np.atleast_1d(c), np.atleast_1d(m)) for name, (c, m, _) in d.part_times_s.items()}
        self.x_d, self.o_d = np.atleast_1d(d.communication_time_s), np.atleast_1d(d.overhead_time_s)
        p = step_time(model, gpu, batch=1, context_tokens=0, new_tokens=p_mean, **common)
        weights_s = p.parallel.pp * float(p.weight_bytes_per_gpu) / (gpu.hbm_bandwidth_bytes_per_s
                                                                        * p.priors["mbu"]["expected"])
        parts = {name: (float(c), float(m)) for name, (c, m, _) in p.part_times_s.items()}
        # Per prefill token: attention's KV writes, and the GEMMs' activations (the GEMMs' and experts' memory time
        # less the weights, read once per step); the experts' memory time is weights only.
        activations = sum(m for name, (_, m) in parts.items() if name != "attention") - weights_s
        memory = {"attention": parts["attention"][1], "gemms": activations}
        self.per_token = {name: (c / p_mean, memory.get(name, 0.0) / p_mean) for name, (c, _) in parts.items()}
        self.x = float(p.communication_time_s) / p_mean

    def time(self, b: np.ndarray, k: np.ndarray | float) -> np.ndarray:
        at = lambda y: np.interp(b, BATCHES, y)  # noqa: E731
        total = at(self.x_d) + k * self.x + at(self.o_d)
        for name, (c_d, m_d) in self.decode.items():
            c, m = self.per_token[name]
            compute, memory = at(c_d) + k * c, at(m_d) + k * m
            total = total + (compute + memory if name in SERIAL_PARTS else np.maximum(compute, memory))
        return total


def _kv_blocks(setups: list[ServingSetup]) -> np.ndarray:
    """simulate.kv_blocks for setups that differ only in max_num_seqs, max_num_batched_tokens, block size and memory
    utilisation, in one vectorized memory.fit (0 where TP does not divide the heads)."""
    s = setups[0]
    if not tp_is_valid(s.model, s.tensor_parallel):
        return np.zeros(len(setups))
    blocks = np.zeros(len(setups))
    for util in {x.gpu_memory_utilization for x in setups}:
        sel = np.array([x.gpu_memory_utilization == util for x in setups])
        r = fit(s.model, s.gpu, context_tokens=1, tp=s.tensor_parallel, weight_dtype=s.weight_dtype,
                kv_dtype=s.kv_dtype, gpu_memory_utilization=util, pp=s.pipeline_parallel, dp=s.data_parallel,
                ep=s.expert_parallel,
                max_num_batched_tokens=np.array([x.max_num_batched_tokens for x, k in zip(setups, sel, strict=True) if k]),
                max_num_seqs=np.array([x.max_num_seqs for x, k in zip(setups, sel, strict=True) if k]))
        size = np.array([x.block_size for x, k in zip(setups, sel, strict=True) if k], dtype=float)
        blocks[sel] = np.floor(np.asarray(r.kv_budget_bytes_per_gpu) // (kv_bytes_per_token(s) * size))
    return blocks


def _refusal(check) -> str | None:
    try:
        check()
    except SimulationError as exc:
        return f"{exc.field}: {exc.message}"
    return None


def _screen_group(res: Screen, model: ModelSpec, gpu: GPUSpec, tp: int, wdt: str, kvdt: str, points: list[dict],
                  idx: np.ndarray, ws: WorkloadStats, w: Workload, layout: dict) -> None:
    setups = [ServingSetup(model, gpu, **{k: p[k] for k in SETUP_KNOBS if k in p}) for p in points]
    blocks = _kv_blocks(setups)
    longest = int((w.prompt_tokens + w.output_tokens).max())
    block_tokens = np.array([s.block_size for s in setups], dtype=float)
    unchunked_budget = np.array([np.inf if s.chunked_prefill else s.max_num_batched_tokens for s in setups])
    ok = (blocks >= 1) & (longest <= blocks * block_tokens) & (longest <= unchunked_budget) & \
        (longest <= model.max_position_embeddings)
    no_room: dict = {}
    for j in np.nonzero(~ok)[0]:  # the engine's own checks decide and word the reason
        s = setups[j]
        if blocks[j] < 1:  # kv_blocks refuses (TP, weights): the same words for the whole group
            if s.gpu_memory_utilization not in no_room:
                no_room[s.gpu_memory_utilization] = _refusal(lambda s=s: kv_blocks(s))
            res.error[idx[j]] = no_room[s.gpu_memory_utilization]
        else:
            res.error[idx[j]] = _refusal(lambda j=j, s=s: check_fits(s, w, int(blocks[j])))
        ok[j] = res.error[idx[j]] is None
    if not ok.any():
        return
    idx, points, blocks = idx[ok], [p for p, k in zip(points, ok, strict=True) if k], blocks[ok]
    block_tokens = block_tokens[ok]
    get = lambda name, default: np.array([p.get(name, default) for p in points], dtype=float)  # noqa: E731
    replicas, seqs = get("replicas", 1), get("max_num_seqs", 256)
    budget = get("max_num_batched_tokens", 8192) * layout["dp"]  # the DP ranks' budgets together, as in the engine
    chunked = np.array([p.get("chunked_prefill", True) for p in points], dtype=bool)
    p_mean, o_mean = max(ws.prompt_mean, 1.0), max(ws.output_mean, 1.0)
    step = _StepModel(model, gpu, tp, wdt, kvdt, p_mean, o_mean, layout)
    lam = (ws.requests - 1) / ws.span_s / replicas if ws.span_s > 0 else np.zeros_like(replicas)
    # the deployment's DP ranks: DP × a rank's max_num_seqs and KV blocks (simulate.simulate)
    b_max = np.maximum(1.0, layout["dp"] * np.minimum(seqs, np.floor(blocks * block_tokens / (p_mean + o_mean))))

    def prefill(b: np.ndarray, prompt: float) -> tuple[np.ndarray, np.ndarray]:
        """(steps, seconds) one prompt's prefill takes beside b decodes: chunks of what the budget leaves."""
        room = np.where(chunked, np.maximum(budget - b, 1.0), np.inf)
        n = np.maximum(1.0, np.ceil(prompt / room))
        return n, n * step.time(b, prompt / n)

    def tpot_at(b: np.ndarray, rate: np.ndarray) -> np.ndarray:
        """Seconds per decode step seen by a request: prefill steps take λ·T_pf of the time, decode-only
        steps of t_d(b) the rest."""
        n, t_pf = prefill(b, p_mean)
        busy = np.minimum(rate * t_pf, 0.999)
        return 1.0 / (rate * n + (1.0 - busy) / step.time(b, 0.0))

    # capacity at the batch ceiling: μ with b_max = μ · Ō · TPOT_μ(b_max) (Little's law at the ceiling)
    n_max, t_pf_max = prefill(b_max, p_mean)
    t_d_max = step.time(b_max, 0.0)
    mu = (b_max / t_d_max) / np.maximum(o_mean - b_max * n_max + b_max * t_pf_max / t_d_max, 1e-9)
    rho = lam / mu
    n_r = ws.requests / replicas
    # a replica holds at most its n_r requests at once: when they all fit under the batch ceiling no request ever
    # waits for a slot, so the backlog of a steady state past capacity does not form (the workload ends first)
    over = (rho >= 1.0) & (n_r > b_max)
    # operating batch: b = λ_r · Ō · TPOT(b), by bisection on [0, min(b_max, n_r)]
    lo, hi = np.zeros_like(b_max), np.minimum(b_max, np.maximum(n_r, 1.0))
    for _ in range(40):
        mid = (lo + hi) / 2
        short = lam * o_mean * tpot_at(mid, lam) > mid
        lo, hi = np.where(short, mid, lo), np.where(short, hi, mid)
    b_run = np.where(over, b_max, np.maximum(hi, 1.0))
    tpot = tpot_at(b_run, np.minimum(lam, mu))
    # TTFT: the step already running, the prompt's own prefill, prompts ahead of it in a burst (M/D/1-like wait
    # at prefill utilisation f) and, when the running batch is full at its 99th percentile (Poisson around b),
    # a wait for slots to free
    _, t_pf99 = prefill(b_run, ws.prompt_p99)
    n_pf, t_pf = prefill(b_run, p_mean)
    # prompts waiting together share a step (the budget takes several), whose decodes are paid once: what a prompt
    # adds to the server's busy time is its prefill's excess over the decode steps it rides on
    f = np.minimum(lam * np.maximum(t_pf - n_pf * step.time(b_run, 0.0), 0.0), 0.99)
    queue = t_pf * LN_100 / 2 * f / (1.0 - f)
    excess = np.maximum(0.0, np.minimum(b_run + 2.33 * np.sqrt(b_run), n_r) - b_max)
    blocked = excess * o_mean * tpot / b_max
    service = tpot + t_pf99
    backlog = np.maximum(0.0, n_r / mu - ws.span_s)
    ttft = np.where(over, service + backlog, service + queue + blocked)
    # 5. cost
    # the longest request ends the run; once arrivals stop there are no prefills and the batch drains, so its
    # tokens come at the decode step of about half the running batch, not at the loaded TPOT
    makespan = np.maximum(ws.span_s, n_r / mu) + service + ws.output_max * step.time(np.maximum(b_run / 2, 1.0), 0.0)
    tokens_per_s = ws.requests * o_mean / makespan
    usd = replicas * tp * layout["pp"] * layout["dp"] * gpu.price_per_hour_usd / 3600.0 / tokens_per_s * 1e6
    res.feasible[idx] = True
    res.ttft_p99_s[idx], res.tpot_p99_s[idx], res.usd_per_million_tokens[idx] = ttft, tpot, usd
    res.utilization[idx] = rho
    res.overloaded[idx] = over
