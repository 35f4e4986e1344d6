"""Efficiency priors fitted to published measurements, scored leave-one-out.

Ground truth: fixtures/serving-measurements.yaml (TensorRT-LLM's published throughput tables: offline maximum-load
runs, all requests queued at once, fixed input/output lengths; each setup with its source URL pinned to a commit).

Our prediction of such a run, per setup (model, GPU, TP, weight and KV dtypes) and row (ISL, OSL):
* batch b = the sequences the KV cache holds at the mean context ISL + OSL/2 (paged: requests sit at every stage of
  their decode), from memory.fit with 95 % of the memory (the tables' KV fraction), at most 2,048;
* decode step t_d = roofline.step_time at batch b, context ISL + OSL/2; prefill cost per token c_p = one step of
  ⌊8,192 / ISL⌋ prompts (at least one) divided by its tokens (the 8,192-token budget);
* in steady state the engine spends R · ISL · c_p of each second on prefill and the rest on decode steps of b
  tokens, so output tokens/s = OSL · b / (OSL · t_d + b · ISL · c_p).
Each step time is max(FLOPs / (peak · MFU), weight and activation bytes / (BW · MBU) + KV bytes / (BW · KV-BU))
+ communication + overhead (roofline.step_time's terms), with the prefill MFU in a prefill step and the decode MFU
in a decode step (one new token per sequence): MFU rules prefill (compute-bound); the decode MFU (a batch's single
tokens through the GEMMs), MBU (weight streaming) and KV-BU (the attention kernels' KV reads) rule decode.

Fit: per GPU family (Hopper: H100, H200; Blackwell: B200), the (MFU, decode MFU, MBU, KV-BU) minimising the squared
log error over its training rows: a grid in steps of 0.05 (MFU 0.20-0.90, decode MFU 0.10-0.90, MBU 0.60-0.85,
KV-BU 0.25-1.00), then steps of 0.0125 within ±0.05 of the best point. MBU is held to the literature's range
(roofline.PRIORS: "closer to 0.6-0.7", 0.85-0.9 aggressive): maximum-throughput runs barely constrain it (their
decode is compute- or KV-bound), and below that range single-stream decode would come out far too slow. Leave-one-out:
each row is predicted by a fit on the other rows of its family (other lengths of the same setup stay in training);
its low/high are the expected value × the 2.5th / 97.5th percentile of the training rows' measured/predicted ratios.
The summary is repeated leaving out a row's whole setup (a new model/GPU/TP combination), the harder case. Printed:
one line per row (setup, measured, low / expected / high, inside?), the fit on all rows of each family with the
priors it implies (expected × the same percentiles), the summary lines (share inside, median high/low width,
geometric-mean ratio), the product's defaults (roofline.priors_for, what every simulator uses) and the hand-set
priors (roofline.PRIORS) scored the same way, and the GPU ratios measured vs predicted.
Run: .venv/bin/python benchmarks/calibration.py
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dataclasses import replace  # noqa: E402

from apps.simulators.modeling import load_gpus, load_models, step_time  # noqa: E402
from apps.simulators.modeling.memory import fit  # noqa: E402
from apps.simulators.modeling.roofline import PRIORS, EfficiencyPriors, Prior, gpu_family, priors_for  # noqa: E402

MAX_BATCH = 2048
TOKEN_BUDGET = 8192
MEMORY_SHARE = 0.95  # the tables' runs: "--kv_cache_free_gpu_mem_fraction 0.95 ... fall back to 0.90" if out of memory
FACTORS = ("mfu", "decode_mfu", "mbu", "kv_read_efficiency")
BOUNDS = ((0.20, 0.90), (0.10, 0.90), (0.60, 0.85), (0.25, 1.00))  # per factor, as FACTORS
COARSE, FINE = 0.05, 0.0125
COVER = (2.5, 97.5)  # percentiles of the training ratios that make the range


@dataclass
class Row:
    setup: str
    gpu: str
    family: str
    isl: int
    osl: int
    measured: float
    # per-step pieces: compute and memory seconds at efficiency 1, plus communication and overhead
    dec: tuple
    pre: tuple
    batch: float
    pre_tokens: float


ONE = Prior(1.0, 1.0, 1.0, "")


def _unit(gpu) -> EfficiencyPriors:
    """The GPU's priors with every fitted factor at 1 (communication and overheads as the product has them)."""
    return replace(priors_for(gpu), **{name: ONE for name in FACTORS})


def _pieces(r, gpu) -> tuple:
    """(seconds at MFU 1, seconds at MBU 1 for the weights and activations, the same for the KV cache,
    communication + overhead seconds) of a step computed at unit efficiencies."""
    kv = float(r.kv_bytes_per_gpu) / gpu.hbm_bandwidth_bytes_per_s
    return (float(r.compute_time_s), float(r.memory_time_s) - kv, kv,
            float(r.communication_time_s) + float(r.overhead_time_s))


def load_rows() -> list[Row]:
    models, gpus = load_models(), load_gpus()
    rows = []
    for s in yaml.safe_load((ROOT / "fixtures" / "serving-measurements.yaml").read_text()):
        m, g = models[s["model"]], gpus[s["gpu"]]
        common = dict(tp=s["tensor_parallel"], weight_dtype=s["weight_dtype"], kv_dtype=s["kv_dtype"])
        unit = _unit(g)
        for isl, osl, measured in s["results"]:
            ctx = isl + osl / 2
            mem = fit(m, g, context_tokens=ctx, gpu_memory_utilization=MEMORY_SHARE, max_num_batched_tokens=TOKEN_BUDGET,
                      **common)
            b = float(min(MAX_BATCH, max(1.0, float(mem.max_concurrent_sequences))))
            prompts = max(1, TOKEN_BUDGET // isl)
            rows.append(Row(s["setup"], s["gpu"], gpu_family(g), isl, osl, float(measured),
                            _pieces(step_time(m, g, batch=b, context_tokens=ctx, priors=unit, **common), g),
                            _pieces(step_time(m, g, batch=prompts, context_tokens=0, new_tokens=isl, priors=unit,
                                              **common), g),
                            b, float(prompts * isl)))
    return rows


def _step(piece: tuple, mfu, mbu, kvbu):
    return np.maximum(piece[0] / mfu, piece[1] / mbu + piece[2] / kvbu) + piece[3]


def predict_one(r: Row, mfu, decode_mfu, mbu, kvbu):
    """Output tokens/s of a row at the efficiency factors (scalars or broadcastable arrays)."""
    t_d = _step(r.dec, decode_mfu, mbu, kvbu)
    c_p = _step(r.pre, mfu, mbu, kvbu) / r.pre_tokens
    return r.osl * r.batch / (r.osl * t_d + r.batch * r.isl * c_p)


def predict(rows: list[Row], *factors) -> np.ndarray:
    return np.array([predict_one(r, *factors) for r in rows])


def fit_family(rows: list[Row]) -> tuple[tuple, np.ndarray]:
    """(MFU, decode MFU, MBU, KV-BU) minimising Σ log² (measured / predicted), and the training ratios there."""
    axes = [np.arange(lo, hi + 1e-9, COARSE) for lo, hi in BOUNDS]
    for _ in range(2):
        grid = np.meshgrid(*axes, indexing="ij")
        err = sum((math.log(r.measured) - np.log(predict_one(r, *grid))) ** 2 for r in rows)
        at = np.unravel_index(np.argmin(err), grid[0].shape)
        best = tuple(round(float(g[at]), 4) for g in grid)
        axes = [np.unique(np.clip(np.arange(b - COARSE, b + COARSE + 1e-9, FINE), lo, hi))
                for b, (lo, hi) in zip(best, BOUNDS, strict=True)]
    ratios = np.array([r.measured for r in rows]) / predict(rows, *best)
    return best, ratios


def leave_one_out(rows: list[Row], whole_setup: bool = False) -> list[tuple]:
    """Each row predicted from a fit on the other rows of its family (with whole_setup, on the other setups)."""
    results = []
    for k, r in enumerate(rows):
        train = [x for i, x in enumerate(rows) if i != k and x.family == r.family
                 and not (whole_setup and x.setup == r.setup)]
        best, ratios = fit_family(train)
        expected = float(predict([r], *best)[0])
        lo, hi = (expected * float(np.percentile(ratios, q)) for q in COVER)
        results.append((r, lo, expected, hi))
    return results


def scored(rows: list[Row], priors_of) -> list[tuple]:
    """Each row at a priors set's pessimistic (low), expected and optimistic (high) factors together; `priors_of`
    maps a GPU slug to its EfficiencyPriors (communication and overheads stay at the product's expected values)."""
    out = []
    for r in rows:
        p = priors_of(r.gpu)
        lo, e, hi = ([float(predict_one(r, *(getattr(getattr(p, f), end) for f in FACTORS)))]
                     for end in ("low", "expected", "high"))
        out.append((r, lo[0], e[0], hi[0]))
    return out


def summary(results: list[tuple], label: str) -> None:
    inside = [lo <= r.measured <= hi for r, lo, _, hi in results]
    width = float(np.median([hi / lo for _, lo, _, hi in results]))
    gmean = math.exp(float(np.mean([math.log(r.measured / e) for r, _, e, _ in results])))
    print(f"{label}: {sum(inside)}/{len(inside)} measurements inside ({100 * sum(inside) / len(inside):.0f} %; "
          f"target >= 80 %), median range high/low {width:.2f}x (target <= 1.7x), geometric-mean measured/expected "
          f"{gmean:.2f}")


def ratios(rows: list[Row], results: list[tuple]) -> None:
    expected = {(r.setup, r.isl, r.osl): e for r, _, e, _ in results}
    measured = {(r.setup, r.isl, r.osl): r.measured for r in rows}
    for a, b, what in (("llama-3.1-8b-fp8-h200-tp1", "llama-3.1-8b-fp8-h100-tp1", "H200/H100, Llama 3.1 8B FP8 TP1"),
                       ("llama-3.3-70b-fp4-b200-tp1", "llama-3.3-70b-fp8-h200-tp1",
                        "B200 FP4/H200 FP8, Llama 3.3 70B TP1")):
        keys = [(isl, osl) for (s, isl, osl) in measured if s == a]
        meas = [measured[(a, *k)] / measured[(b, *k)] for k in keys]
        pred = [expected[(a, *k)] / expected[(b, *k)] for k in keys]
        print(f"{what}: measured {min(meas):.2f}-{max(meas):.2f} (geometric mean "
              f"{math.exp(np.mean(np.log(meas))):.2f}), predicted {min(pred):.2f}-{max(pred):.2f} (geometric mean "
              f"{math.exp(np.mean(np.log(pred))):.2f})")


def main() -> None:
    rows = load_rows()
    gpus = load_gpus()
    loo = leave_one_out(rows)
    print(f"{'setup':<30} {'ISL/OSL':>11} {'measured':>9} {'low':>9} {'expected':>9} {'high':>9}  inside?")
    for r, lo, e, hi in loo:
        print(f"{r.setup:<30} {f'{r.isl}/{r.osl}':>11} {r.measured:>9,.0f} {lo:>9,.0f} {e:>9,.0f} {hi:>9,.0f}  "
              f"{'yes' if lo <= r.measured <= hi else 'no'}")
    for family in sorted({r.family for r in rows}):
        best, train = fit_family([r for r in rows if r.family == family])
        lo, hi = (float(np.percentile(train, q)) for q in COVER)
        implied = ", ".join(f"{name} {b * lo:.3f} / {b:.4g} / {b * hi:.3f}" for name, b in zip(FACTORS, best,
                                                                                              strict=True))
        print(f"fitted on all {len(train)} {family} rows: {implied} (low / expected / high, measured/predicted "
              f"{lo:.3f}-{hi:.3f})")
    summary(loo, "leave-one-out, fitted per GPU family and phase")
    summary(leave_one_out(rows, whole_setup=True), "leave-one-setup-out (stricter: no other length of the same setup "
                                                   "in training)")
    product = scored(rows, lambda slug: priors_for(gpus[slug]))
    summary(product, "product defaults (roofline.priors_for, fitted on all rows: in-sample)")
    summary(scored(rows, lambda slug: PRIORS), f"hand-set priors (MFU {PRIORS.mfu.low}-{PRIORS.mfu.high}, MBU "
                                               f"{PRIORS.mbu.low}-{PRIORS.mbu.high})")
    print("GPU ratios (leave-one-out expected values):")
    ratios(rows, loo)
    print("GPU ratios (product defaults, expected):")
    ratios(rows, product)
    print("GPU ratios (hand-set priors, expected):")
    ratios(rows, scored(rows, lambda slug: PRIORS))


if __name__ == "__main__":
    main()
