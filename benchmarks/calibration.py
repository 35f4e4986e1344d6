"""Efficiency priors fitted and scored through the functions the endpoints call, held out by source.

Ground truth: fixtures/serving-measurements.yaml (TensorRT-LLM's published offline throughput tables; publisher
tensorrt-llm) and fixtures/serving-measurements-external.yaml (other publishers: vLLM, SGLang, AMD, clouds, papers).
MLPerf Inference results are not used: they stay an external check.

One predictor. A row is predicted with the throughput-latency and capacity endpoints' own model
(apps/simulators/modeling/steady_state.py): the decode step t_d = roofline.step_time (the step-time endpoint) at the
run's decode batch b and the mean context ISL + OSL/2, the prefill cost per token c_p = steady_state.prefill_step
(one prefill step of the 8,192-token budget, as capacity and the curve take it), and
    output tokens/s = OSL · b / (OSL · t_d + b · ISL · c_p),   TPOT = t_d + b · ISL · c_p / OSL.
The batch b: an offline run (all requests queued) holds what the KV cache takes at the mean context (paged: requests
sit at every stage of their decode; TensorRT-LLM's runs at ISL + OSL, the length its default GUARANTEED_NO_EVICT
scheduler reserves at admission, kv_admission: full_length) at the run's memory share, at most the setup's
max_num_seqs (else 2,048) and at most the run's requests per DP rank where the source states them (TensorRT-LLM's
$num_requests tables: with fewer requests than the engine holds, all run at once, and the steady state at b = n is
that run exactly, n·OSL tokens over the n prompts' prefill plus OSL decode steps); a run at a fixed concurrency holds
min(concurrency ÷ DP ranks, that); a single-request run holds 1. With data-parallel attention (TensorRT-LLM's DEP: DP
ranks of attention, the experts spread over the same GPUs by EP; SGLang's --enable-dp-attention: DP ranks of TP 1,
the experts split over the same GPUs) b is per rank and every rank serves its own share.
Metrics: output (whole deployment or per GPU) or total tokens/s, requests/s, and TPOT (mean time per output token)
from the steady state; TTFT and end-to-end latency of a static batch of b requests (vLLM's
benchmark_latency; b = 1 for one request) as the b prompts' prefill step plus OSL decode steps at batch b.

Fit. Per GPU family and compute dtype (roofline.compute_dtype: BF16, FP8, FP4; e.g. Hopper FP8, Blackwell FP4), the
(prefill MFU, decode MFU, weight-read MBU, KV-read efficiency) minimising the squared log error over the group's
training rows (latencies as their inverse, so every ratio > 1 means faster than predicted): a coordinate search in
log space within the bounds below (MBU held to the literature's 0.60-0.85, as roofline.PRIORS explains). Only the
factors the rows identify move (identified: at least IDENTIFYING_ROWS rows whose prediction moves by
IDENTIFYING_ELASTICITY per unit log change); the others keep the value the search starts from, the fit the group
borrows from (DERIVED_PRIORS) when that group is fitted in the fold, else the hand-set PRIORS, never the installed fit.
Only the groups the product fits (roofline.FITTED_PRIORS) are fitted, in every fold; a group the product does not fit
(Hopper BF16: roofline.DERIVED_PRIORS says why) or with no training rows gets what the product gives it
(roofline.prior_basis: the borrowed fit of DERIVED_PRIORS, when that group has rows, else the hand-set PRIORS), so the
score is the endpoints' own and not that of a fit no endpoint uses.
Fitted on dense models' rows only, scored on every row: the four factors describe dense GEMMs, attention and weight
streaming, and MoE rows (DeepSeek-R1, gpt-oss, Mixtral) measure 2-4x slower than those factors predict at small batch
(expert kernels, routing): fitted in, they dragged every dense prediction of their group and widened its range to
20x. They stay in the score: each is held out with its source, never fitted, so every MoE row counts out of sample.
Ranges: expected × the 2.5th and 97.5th percentile of the group's training ratios measured/predicted; a group with
fewer than MIN_RANGE_ROWS training rows takes the percentiles of every group's training ratios instead (a handful of
rows understates the spread); the hand-set PRIORS' own low and high where nothing was fitted.

Scored: leave-one-source-out (fit on every publisher but one, score the held-out publisher's rows; AMD's blog and
performance pages are one source, SOURCE_GROUPS), overall, per
family and dtype and per publisher, against the targets (>= 75 % inside, median high/low <= 1.7x), with what any range
could do at the same expected values (the narrowest interval of measured/expected holding 75 % of the rows, and the
most rows one 1.7x interval holds: when the first is wider than 1.7x no range rule meets both targets, and the gap is
in the expected values), and the MoE rows by the width of each expert on one GPU; then the product's
installed priors (roofline.FITTED_PRIORS, what every endpoint uses) in sample; the fit on all rows per group (the
values to install); and the GPU ratios, each derived from the batch memory allows, HBM bandwidth and peak compute.
Run: .venv/bin/python benchmarks/calibration.py   (about a minute of CPU per fold on a small machine)
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from apps.simulators.modeling import load_gpus, load_models, step_time  # noqa: E402
from apps.simulators.modeling.memory import fit  # noqa: E402
from apps.simulators.modeling.parallel import Parallelism  # noqa: E402
from apps.simulators.modeling.roofline import (  # noqa: E402
    DERIVED_PRIORS,
    FITTED_PRIORS,
    PRIORS,
    EfficiencyPriors,
    Prior,
    compute_dtype,
    gpu_family,
    prior_basis,
)
from apps.simulators.modeling.steady_state import (  # noqa: E402
    PREFILL_TOKEN_BUDGET,
    prefill_cost_per_token,
    prefill_step,
    steady_state,
)

FILES = (("serving-measurements.yaml", "tensorrt-llm"), ("serving-measurements-external.yaml", None))
MAX_BATCH = 2048
OFFLINE_MEMORY_SHARE = 0.95  # TensorRT-LLM's tables: --kv_cache_free_gpu_mem_fraction 0.95
FACTORS = ("mfu", "decode_mfu", "mbu", "kv_read_efficiency")
BOUNDS = {"mfu": (0.10, 0.95), "decode_mfu": (0.05, 0.95), "mbu": (0.60, 0.85), "kv_read_efficiency": (0.20, 1.00)}
COVER = (2.5, 97.5)
MIN_RANGE_ROWS = 20
IDENTIFYING_ROWS, IDENTIFYING_ELASTICITY = 3, 0.25
SCORED = {"output_tokens_per_s", "output_tokens_per_s_per_gpu", "total_tokens_per_s", "requests_per_s", "tpot_ms",
          "itl_ms", "ttft_ms", "e2e_latency_ms"}
LATENCIES = {"tpot_ms", "itl_ms", "ttft_ms", "e2e_latency_ms"}
# Publishers that are not independent of each other are held out together: AMD's blog and its performance pages run
# the same harness family on the same containers.
SOURCE_GROUPS = {"amd-rocm-blog": "amd", "amd-docs": "amd"}
MODELS, GPUS = load_models(), load_gpus()


@dataclass(frozen=True)
class Row:
    publisher: str
    setup: str
    model: str
    gpu: str
    tp: int
    weight_dtype: str
    kv_dtype: str
    mode: str
    concurrency: int | None
    memory_share: float
    metric: str
    isl: float
    osl: float
    measured: float
    dp: int = 1   # data-parallel attention ranks (TensorRT-LLM's DEP: DP attention with EP over the same GPUs)
    ep: int = 1
    max_num_seqs: int = MAX_BATCH  # the engine's cap on sequences in a step, where the setup states it
    num_requests: int | None = None  # requests in the run (an offline benchmark's dataset), where the source states it
    full_length_admission: bool = False  # KV reserved to ISL + OSL at admission (TensorRT-LLM's GUARANTEED_NO_EVICT)

    @property
    def group(self) -> tuple[str, str]:
        g = GPUS[self.gpu]
        return gpu_family(g), compute_dtype(g, self.weight_dtype)


def load_rows() -> list[Row]:
    rows = []
    for name, publisher in FILES:
        path = ROOT / "fixtures" / name
        if not path.is_file():
            continue
        for s in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            mode = s.get("mode", "offline")
            share = s.get("gpu_memory_utilization", OFFLINE_MEMORY_SHARE if mode == "offline" else 0.9)
            requests = s.get("num_requests") or {}
            for isl, osl, value in s["results"]:
                source = publisher or s["publisher"]
                rows.append(Row(SOURCE_GROUPS.get(source, source), s["setup"], s["model"], s["gpu"], s["tensor_parallel"],
                                s["weight_dtype"], s["kv_dtype"], mode, s.get("concurrency"), share,
                                s.get("metric", "output_tokens_per_s"), float(isl), float(osl), float(value),
                                s.get("data_parallel", 1), s.get("expert_parallel", 1),
                                s.get("max_num_seqs", MAX_BATCH), requests.get(f"{isl}/{osl}"),
                                s.get("kv_admission") == "full_length"))
    return rows


def decode_batch(r: Row) -> float:
    """The sequences the run holds in decode (see the module docstring)."""
    if r.mode == "single":
        return 1.0
    held_tokens = r.isl + r.osl if r.full_length_admission else r.isl + r.osl / 2
    mem = fit(MODELS[r.model], GPUS[r.gpu], context_tokens=held_tokens, tp=r.tp, dp=r.dp, ep=r.ep,
              weight_dtype=r.weight_dtype, kv_dtype=r.kv_dtype, gpu_memory_utilization=r.memory_share,
              max_num_batched_tokens=PREFILL_TOKEN_BUDGET)
    held = float(min(r.max_num_seqs, max(1.0, float(mem.max_concurrent_sequences))))
    if r.num_requests:  # a run of fewer requests than the engine holds runs them all at once, spread over the DP ranks
        held = min(held, r.num_requests / r.dp)
    # a fixed concurrency is the whole deployment's, spread over its DP ranks like the requests
    return float(min(held, r.concurrency / r.dp)) if r.mode == "concurrency" and r.concurrency else held


_BATCH: dict[Row, float] = {}


def predict(r: Row, priors: EfficiencyPriors, end: str = "expected") -> float:
    """The row's metric by the endpoints' steady-state model at these priors (end: expected, optimistic or
    pessimistic, as step_time's ranges)."""
    if r not in _BATCH:
        _BATCH[r] = decode_batch(r)
    b = _BATCH[r]
    m, g = MODELS[r.model], GPUS[r.gpu]
    common = dict(tp=r.tp, dp=r.dp, ep=r.ep, weight_dtype=r.weight_dtype, kv_dtype=r.kv_dtype, priors=priors)
    dec = step_time(m, g, batch=b, context_tokens=r.isl + r.osl / 2, new_tokens=1, **common)
    c_p = prefill_cost_per_token(prefill_step(m, g, r.isl, **common))
    pick = {"expected": 0, "optimistic": 1, "pessimistic": 2}[end]
    t_d = float(dec.step_time_s if pick == 0 else dec.step_time_s_range[pick - 1])
    if r.metric in ("ttft_ms", "e2e_latency_ms"):
        # A static batch of b requests (vLLM's benchmark_latency) or one request: the b prompts prefilled in one step,
        # then OSL decode steps at batch b (at the mean context).
        pf = step_time(m, g, batch=b, context_tokens=0, new_tokens=r.isl, **common)
        t_p = float(pf.step_time_s if pick == 0 else pf.step_time_s_range[pick - 1])
        return 1e3 * (t_p if r.metric == "ttft_ms" else t_p + r.osl * t_d)
    ss = steady_state(t_d, c_p[pick], b, r.isl, r.osl)
    out = float(ss.output_tokens_per_s) * r.dp  # every DP rank serves its own share of the requests
    return {"output_tokens_per_s": out, "output_tokens_per_s_per_gpu": out / (r.tp * r.dp),
            "total_tokens_per_s": out * (r.isl + r.osl) / r.osl, "requests_per_s": out / r.osl,
            "tpot_ms": 1e3 * float(ss.tpot_s), "itl_ms": 1e3 * float(ss.tpot_s)}[r.metric]


def _with(base: EfficiencyPriors, values: dict[str, float]) -> EfficiencyPriors:
    return replace(base, **{k: Prior(v, v, v, "calibration candidate") for k, v in values.items()})


def _error(rows: list[Row], priors: EfficiencyPriors) -> float:
    return sum((math.log(r.measured / predict(r, priors))) ** 2 for r in rows)


def _lower_is_faster(metric: str) -> bool:
    return metric in LATENCIES


def ratio(r: Row, predicted: float) -> float:
    """measured / predicted, as a throughput ratio (inverted for latencies, so > 1 always means faster than
    predicted)."""
    return predicted / r.measured if _lower_is_faster(r.metric) else r.measured / predicted


def identified(rows: list[Row], base: EfficiencyPriors) -> list[str]:
    """The factors the rows can tell apart: those that move at least IDENTIFYING_ROWS predictions by
    IDENTIFYING_ELASTICITY (d log predicted / d log factor) at `base`. A factor no row depends on is not fitted: a
    search would push it to a bound for a rounding's worth of error (4 static-batch latencies, which depend on the
    weight-read MBU alone, once set Hopper BF16's prefill MFU to 0.10) and every other row would pay for it."""
    values = {k: getattr(base, k).expected for k in FACTORS}
    before = np.array([predict(r, _with(base, values)) for r in rows])
    out = []
    for k in FACTORS:
        after = np.array([predict(r, _with(base, {**values, k: values[k] * 1.1})) for r in rows])
        elasticity = np.abs(np.log(after / before)) / math.log(1.1)
        if int(np.sum(elasticity >= IDENTIFYING_ELASTICITY)) >= IDENTIFYING_ROWS:
            out.append(k)
    return out


def fit_group(rows: list[Row], base: EfficiencyPriors) -> tuple[dict[str, float], np.ndarray, list[str]]:
    """The factors the rows identify, minimising Σ log² (measured / predicted) over `rows` from `base` (the others
    keep base's values), the training ratios there, and which factors were identified."""
    values = {k: getattr(base, k).expected for k in FACTORS}
    free = identified(rows, base)
    best = _error(rows, _with(base, values))
    step = 0.4
    while step > 0.01:
        improved = False
        for k in free:
            for direction in (1, -1):
                lo, hi = BOUNDS[k]
                trial = {**values, k: float(np.clip(values[k] * math.exp(direction * step), lo, hi))}
                if trial[k] == values[k]:
                    continue
                err = _error(rows, _with(base, trial))
                if err < best - 1e-12:
                    values, best, improved = trial, err, True
        if not improved:
            step /= 2
    priors = _with(base, values)
    return values, np.array([ratio(r, predict(r, priors)) for r in rows]), free


@dataclass
class Fitted:
    priors: EfficiencyPriors
    low: float
    high: float
    basis: str


def fits_a_group(r: Row) -> bool:
    """Whether a row may join its family/dtype's fit: a scored metric of a dense model on a GPU of a known family."""
    return r.metric in SCORED and bool(r.group[0]) and not MODELS[r.model].is_moe


def fits_on(train: list[Row], min_range_rows: int = MIN_RANGE_ROWS) -> dict[tuple[str, str], Fitted]:
    """Each family/dtype's fit on these rows. A group starts from what the product would give it without rows (the
    fit DERIVED_PRIORS borrows, when that group is fitted here, else the hand-set PRIORS), never from the installed
    fit, which has seen every source; the factors its rows do not identify stay there. Only the groups the product
    fits (FITTED_PRIORS) are fitted: the others take what prior_basis gives them, as every endpoint does."""
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in train:
        if fits_a_group(r) and r.group in FITTED_PRIORS:
            groups[r.group].append(r)
    borrows = {key: DERIVED_PRIORS[key][0] for key in groups if DERIVED_PRIORS.get(key, (None,))[0] in groups}
    fitted = {}
    for key in sorted(groups, key=lambda k: k in borrows):  # the groups others borrow from first
        base = _with(PRIORS, fitted[borrows[key]][0]) if key in borrows else PRIORS
        fitted[key] = fit_group(groups[key], base)
    pooled = np.concatenate([ratios for _, ratios, _ in fitted.values()]) if fitted else np.ones(1)
    out = {}
    for key, (values, ratios, free) in fitted.items():
        # A few rows' spread understates the error (9 rows of one harness gave a 1.28x range that held 40 % of
        # another source's rows): below MIN_RANGE_ROWS the range is the percentiles of every group's training ratios.
        spread = ratios if len(ratios) >= min_range_rows else pooled
        lo, hi = (float(np.percentile(spread, q)) for q in COVER)
        out[key] = Fitted(_with(FITTED_PRIORS.get(key, PRIORS), values), lo, hi,
                          f"fitted on {len(ratios)} {key[0]} {key[1]} rows ({', '.join(free) or 'no factor'} identified)")
    return out


def priors_of(r: Row, fitted: dict[tuple[str, str], Fitted]) -> Fitted | None:
    """What a row gets from a set of fits, as the product would: its own group's fit, else the group DERIVED_PRIORS
    borrows from, else None (the hand-set PRIORS and their own range)."""
    if r.group in fitted:
        return fitted[r.group]
    source = DERIVED_PRIORS.get(r.group, (None, ""))[0]
    if source in fitted:
        f = fitted[source]
        return Fitted(f.priors, f.low, f.high, f"borrowed from {source[0]} {source[1]}")
    return None


def scored_row(r: Row, f: Fitted | None) -> tuple[float, float, float]:
    """(low, expected, high) of the row's metric."""
    if f is None:  # the hand-set priors: their pessimistic and optimistic ends
        a, e, b = (predict(r, PRIORS, end) for end in ("pessimistic", "expected", "optimistic"))
    else:
        e = predict(r, f.priors)
        a, b = (e * f.low, e * f.high) if not _lower_is_faster(r.metric) else (e / f.high, e / f.low)
    return (min(a, b), e, max(a, b))


def leave_one_source_out(rows: list[Row], min_range_rows: int = MIN_RANGE_ROWS) -> list[tuple]:
    results = []
    for publisher in sorted({r.publisher for r in rows}):
        start = time.process_time()
        fitted = fits_on([r for r in rows if r.publisher != publisher], min_range_rows)
        held = [r for r in rows if r.publisher == publisher and r.metric in SCORED]
        for r in held:
            results.append((r, *scored_row(r, priors_of(r, fitted)), priors_of(r, fitted)))
        print(f"  fold without {publisher}: {len(held)} held-out rows, groups fitted "
              f"{', '.join(f'{k[0]} {k[1]}' for k in sorted(fitted)) or 'none'} "
              f"({time.process_time() - start:.0f} s CPU)", flush=True)
    return results


def summary(results: list[tuple], label: str) -> None:
    if not results:
        print(f"{label}: no rows")
        return
    inside = [lo <= r.measured <= hi for r, lo, _, hi, *_ in results]
    width = float(np.median([hi / lo for _, lo, _, hi, *_ in results]))
    gmean = math.exp(float(np.mean([math.log(ratio(r, e)) for r, _, e, _, *_ in results])))
    print(f"{label}: {sum(inside)}/{len(inside)} inside ({100 * sum(inside) / len(inside):.1f} %; target >= 75 %), "
          f"median high/low {width:.2f}x (target <= 1.7x), geometric-mean measured/expected {gmean:.2f}")


def narrowest_cover(ratios, share: float) -> tuple[float, float]:
    """The narrowest interval (in log space) of measured/expected ratios that holds `share` of them: what the best
    single range any rule could place would need to be at these predictions."""
    q = np.sort(np.log(np.asarray(ratios, dtype=float)))
    k = math.ceil(share * len(q))
    widths = q[k - 1:] - q[:len(q) - k + 1]
    i = int(np.argmin(widths))
    return math.exp(q[i]), math.exp(q[i + k - 1])


def most_within(ratios, width: float) -> int:
    """The most ratios that any one interval of high/low = `width` holds."""
    q = np.sort(np.log(np.asarray(ratios, dtype=float)))
    return int(max(np.searchsorted(q, x + math.log(width), side="right") - i for i, x in enumerate(q)))


def range_bound(results: list[tuple]) -> None:
    """Whether any range could meet both targets at these expected values: the narrowest interval of measured/expected
    holding 75 % of the rows, and the most rows one 1.7x interval holds."""
    ratios = [ratio(r, e) for r, _, e, *_ in results]
    lo, hi = narrowest_cover(ratios, 0.75)
    print(f"  any range at these expected values: the narrowest interval of measured/expected holding 75 % of the "
          f"{len(ratios)} rows is {lo:.3f}-{hi:.3f} ({hi / lo:.2f}x); one 1.7x interval holds at most "
          f"{most_within(ratios, 1.7)}/{len(ratios)}")


def expert_shard_width(r: Row) -> float:
    """Columns of each routed expert on one GPU, by the product's rule (Parallelism.expert_width)."""
    return Parallelism(tp=r.tp, dp=r.dp, ep=r.ep).expert_width(MODELS[r.model])


def moe_by_expert_width(results: list[tuple]) -> None:
    """Held-out MoE rows by publisher, model and per-GPU expert width: where the MoE gap sits."""
    groups: dict[tuple[float, str, str], list[tuple]] = defaultdict(list)
    for x in results:
        if MODELS[x[0].model].is_moe:
            groups[(expert_shard_width(x[0]), x[0].model, x[0].publisher)].append(x)
    for (width, model, publisher), xs in sorted(groups.items()):
        q = [ratio(r, e) for r, _, e, *_ in xs]
        inside = sum(lo <= r.measured <= hi for r, lo, _, hi, *_ in xs)
        print(f"  {width:>6,.0f} columns  {model:<14} {publisher:<18} {len(xs):>3} rows, measured/expected "
              f"{min(q):.2f}-{max(q):.2f} (geometric mean {math.exp(float(np.mean(np.log(q)))):.2f}), {inside} inside")


def installed(rows: list[Row]) -> list[tuple]:
    """The product's priors (prior_basis: what every endpoint uses), with their installed ranges, in sample."""
    out = []
    for r in rows:
        if r.metric not in SCORED:
            continue
        p, _ = prior_basis(GPUS[r.gpu], r.weight_dtype)
        a, e, b = (predict(r, p, end) for end in ("pessimistic", "expected", "optimistic"))
        out.append((r, min(a, b), e, max(a, b)))
    return out


def gpu_ratios(rows: list[Row], results: list[tuple]) -> None:
    """Measured vs predicted GPU-to-GPU ratios on the same setup and lengths, each predicted ratio taken apart into
    the batch memory allows, the decode step (HBM bandwidth, peak compute) and the prefill cost."""
    expected = {(r.model, r.gpu, r.tp, r.weight_dtype, r.isl, r.osl): e for r, _, e, *_ in results}
    measured = {(r.model, r.gpu, r.tp, r.weight_dtype, r.isl, r.osl): r for r in rows}
    pairs = (("h200", "h100-sxm", "fp8"), ("b200", "h200", "fp8"), ("b200", "h200", "fp4"))
    for fast, slow, dtype in pairs:
        keys = sorted({(m, tp, wd, isl, osl) for (m, g, tp, wd, isl, osl) in measured if g == fast
                       and (m, slow, tp, wd, isl, osl) in measured and compute_dtype(GPUS[fast], wd) == dtype})
        if not keys:
            gf, gs = GPUS[fast], GPUS[slow]
            print(f"{fast}/{slow} {dtype.upper()}: no measured pair; bandwidth {gf.hbm_bandwidth_bytes_per_s / gs.hbm_bandwidth_bytes_per_s:.2f}x, "
                  f"peak {gf.peak_flops(dtype) / gs.peak_flops(dtype if dtype != 'fp4' else 'fp8'):.2f}x, "
                  f"memory {gf.memory_bytes / gs.memory_bytes:.2f}x")
            continue
        meas, pred = [], []
        for m, tp, wd, isl, osl in keys:
            a, b = measured[(m, fast, tp, wd, isl, osl)], measured[(m, slow, tp, wd, isl, osl)]
            meas.append(a.measured / b.measured)
            pred.append(expected.get((m, fast, tp, wd, isl, osl), float("nan")) /
                        expected.get((m, slow, tp, wd, isl, osl), float("nan")))
        print(f"{fast}/{slow} {dtype.upper()} ({len(keys)} pairs): measured {min(meas):.2f}-{max(meas):.2f} "
              f"(geometric mean {math.exp(np.mean(np.log(meas))):.2f}), predicted geometric mean "
              f"{math.exp(np.nanmean(np.log(pred))):.2f}")
        # a long-output row, where decode dominates and the GPUs differ most
        m, tp, wd, isl, osl = max(keys, key=lambda k: (k[4] >= 1000, k[3] <= 1000, k[4], -k[3]))
        parts = []
        for g in (fast, slow):
            r = measured[(m, g, tp, wd, isl, osl)]
            p, _ = prior_basis(GPUS[g], wd)
            b = decode_batch(r)
            dec = step_time(MODELS[m], GPUS[g], batch=b, context_tokens=isl + osl / 2, tp=tp, weight_dtype=wd,
                            kv_dtype=r.kv_dtype, priors=p)
            c_p = prefill_cost_per_token(prefill_step(MODELS[m], GPUS[g], isl, tp=tp, weight_dtype=wd,
                                                     kv_dtype=r.kv_dtype, priors=p))[0]
            parts.append((b, float(dec.step_time_s), c_p, str(dec.bound)))
        (b1, t1, c1, k1), (b2, t2, c2, k2) = parts
        print(f"  derivation at {m} TP{tp} {isl:.0f}/{osl:.0f}: batch {b1:,.0f} vs {b2:,.0f} ({b1 / b2:.2f}x, KV memory),"
              f" decode step {t1 * 1e3:.2f} vs {t2 * 1e3:.2f} ms ({k1} vs {k2}-bound; per sequence "
              f"{(b1 / t1) / (b2 / t2):.2f}x), prefill {c2 / c1:.2f}x faster per token "
              f"(bandwidth {GPUS[fast].hbm_bandwidth_bytes_per_s / GPUS[slow].hbm_bandwidth_bytes_per_s:.2f}x, peak "
              f"{GPUS[fast].peak_flops(wd) / GPUS[slow].peak_flops(wd):.2f}x)")


def main() -> None:
    rows = load_rows()
    publishers = sorted({r.publisher for r in rows})
    print(f"{len(rows)} rows from {len(publishers)} publishers ({', '.join(publishers)}); "
          f"{sum(r.metric not in SCORED for r in rows)} TTFT rows listed only")
    print("Leave-one-source-out (fit on the other publishers, through the endpoints' steady-state model):")
    loso = leave_one_source_out(rows)
    print(f"{'publisher':<16} {'setup':<44} {'ISL/OSL':>11} {'metric':<20} {'measured':>10} {'low':>10} "
          f"{'expected':>10} {'high':>10}  inside  priors")
    for r, lo, e, hi, f in loso:
        print(f"{r.publisher:<16} {r.setup[:44]:<44} {f'{r.isl:.0f}/{r.osl:.0f}':>11} {r.metric:<20} "
              f"{r.measured:>10,.1f} {lo:>10,.1f} {e:>10,.1f} {hi:>10,.1f}  {'yes' if lo <= r.measured <= hi else 'no':<6}"
              f"  {f.basis if f else 'hand-set PRIORS'}")
    summary(loso, "leave-one-source-out, all held-out rows")
    range_bound(loso)
    for key in sorted({r.group for r, *_ in loso}):
        summary([x for x in loso if x[0].group == key], f"  {key[0] or 'unfitted family'} {key[1]}")
    for publisher in publishers:
        summary([x for x in loso if x[0].publisher == publisher], f"  held out {publisher}")
    for label, moe in (("dense models", False), ("MoE models (never fitted)", True)):
        summary([x for x in loso if MODELS[x[0].model].is_moe == moe], f"  {label}")
        range_bound([x for x in loso if MODELS[x[0].model].is_moe == moe])
    print("Held-out MoE rows by the width of each routed expert on one GPU (moe_intermediate_size, ÷ TP unless EP):")
    moe_by_expert_width(loso)
    summary(leave_one_source_out(rows, min_range_rows=0), "leave-one-source-out with every group's range from its own "
                                                          "training rows only (however few)")
    product = installed(rows)
    summary(product, "installed priors (roofline.prior_basis, what the endpoints use), in sample")
    print("Fit on all rows, per family and compute dtype (the values to install in roofline.FITTED_PRIORS):")
    for key, f in sorted(fits_on(rows).items()):
        implied = ", ".join(f"{k} {getattr(f.priors, k).expected * f.low:.3f} / {getattr(f.priors, k).expected:.4g} / "
                            f"{getattr(f.priors, k).expected * f.high:.3f}" for k in FACTORS)
        print(f"  {key[0]} {key[1]} ({f.basis}): {implied} (low / expected / high; measured/predicted "
              f"{f.low:.3f}-{f.high:.3f})")
    unfitted = Counter(r.group for r in rows if fits_a_group(r) and r.group not in FITTED_PRIORS)
    for key, n in sorted(unfitted.items()):
        reason = DERIVED_PRIORS.get(key, (None, "the hand-set PRIORS"))[1].format(family=key[0], dtype=key[1].upper())
        print(f"  {key[0]} {key[1]}: {n} dense rows, not fitted ({reason})")
    print("GPU ratios (installed priors, expected), each with its derivation:")
    gpu_ratios(rows, product)


if __name__ == "__main__":
    main()
