"""Synthetic and replayed request workloads for the serving simulator.

A workload is a set of requests, each with an arrival time, a prompt length, an output
length and (optionally) a prefix group: requests of one group share their first
`prefix_tokens` prompt tokens (a system prompt, or the history of a multi-turn chat),
so a prefix cache can reuse those KV blocks.

Arrivals: Poisson (exponential gaps at `rate`), gamma (gaps with coefficient of
variation `cv`; cv > 1 is bursty, cv = 1 is Poisson), on/off (Poisson at rate/duty
during "on" windows, silence during "off" windows, same mean rate), or a replayed trace.
Lengths: fixed, uniform (integers, inclusive), lognormal (`mean` of the underlying
normal is given as the *median* token count, `sigma` its log-space spread) or empirical
(resampled from given values). Sessions: each session has `turns` turns; turn k's prompt
is the whole previous conversation plus a new user message, so it shares that much prefix.
Everything draws from one numpy Generator seeded by the caller: same seed, same workload.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_TOKENS_PER_REQUEST = 131_072
ARRIVALS = ("poisson", "gamma", "onoff")
DISTRIBUTIONS = ("fixed", "uniform", "lognormal", "empirical")
DISTRIBUTION_KEYS = {"fixed": ("value",), "uniform": ("low", "high"), "lognormal": ("mean", "sigma"),
                     "empirical": ("values",)}


class WorkloadError(ValueError):
    """Bad workload input; `field` names it (dotted path inside the workload)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


@dataclass(frozen=True)
class LengthDist:
    kind: str = "fixed"
    value: float = 128
    low: float = 1
    high: float = 1
    mean: float = 128.0   # lognormal: median token count (exp of the normal's mean)
    sigma: float = 0.5
    values: tuple[float, ...] = ()

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self.kind == "fixed":
            x = np.full(n, float(self.value))
        elif self.kind == "uniform":
            x = rng.integers(int(self.low), int(self.high) + 1, size=n).astype(float)
        elif self.kind == "lognormal":
            x = rng.lognormal(np.log(self.mean), self.sigma, size=n)
        else:
            x = rng.choice(np.asarray(self.values, dtype=float), size=n)
        return np.clip(np.rint(x), 1, MAX_TOKENS_PER_REQUEST).astype(np.int64)


def length_dist(value: Any, field: str) -> LengthDist:
    """Parse a number or a {"dist": ...} object into a LengthDist (WorkloadError naming `field`)."""
    if isinstance(value, bool):
        raise WorkloadError(field, "must be a number or a distribution object")
    if isinstance(value, (int, float)):
        if not 1 <= value <= MAX_TOKENS_PER_REQUEST:
            raise WorkloadError(field, f"must be between 1 and {MAX_TOKENS_PER_REQUEST:,}")
        return LengthDist("fixed", value=float(value))
    if not isinstance(value, dict):
        raise WorkloadError(field, "must be a number or a distribution object")
    kind = value.get("dist")
    if kind not in DISTRIBUTIONS:
        raise WorkloadError(f"{field}.dist", f"must be one of {', '.join(DISTRIBUTIONS)}")
    unknown = sorted(set(value) - {"dist", *DISTRIBUTION_KEYS[kind]})
    if unknown:
        raise WorkloadError(f"{field}.{unknown[0]}", f"unknown key; a {kind} distribution takes "
                                                     f"{', '.join(DISTRIBUTION_KEYS[kind])}")
    if kind == "fixed":
        return length_dist(_num(value, "value", field), field)
    if kind == "uniform":
        low, high = _num(value, "low", field), _num(value, "high", field)
        _range(low, f"{field}.low")
        _range(high, f"{field}.high")
        if high < low:
            raise WorkloadError(f"{field}.high", "must be >= low")
        return LengthDist("uniform", low=low, high=high)
    if kind == "lognormal":
        mean, sigma = _num(value, "mean", field), _num(value, "sigma", field)
        _range(mean, f"{field}.mean")
        if not 0 <= sigma <= 3:
            raise WorkloadError(f"{field}.sigma", "must be between 0 and 3")
        return LengthDist("lognormal", mean=mean, sigma=sigma)
    values = value.get("values")
    if not isinstance(values, list) or not 1 <= len(values) <= 100_000:
        raise WorkloadError(f"{field}.values", "must be a list of 1 to 100,000 numbers")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise WorkloadError(f"{field}.values.{i}", "must be a number")
        _range(v, f"{field}.values.{i}")
    return LengthDist("empirical", values=tuple(float(v) for v in values))


def _num(obj: dict, key: str, field: str) -> float:
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
        raise WorkloadError(f"{field}.{key}", "must be a number")
    return float(v)


def _range(v: float, field: str) -> None:
    if not 1 <= v <= MAX_TOKENS_PER_REQUEST:
        raise WorkloadError(field, f"must be between 1 and {MAX_TOKENS_PER_REQUEST:,}")


@dataclass(frozen=True)
class WorkloadSpec:
    num_requests: int = 100
    arrival_rate_per_s: float = 10.0
    arrival: str = "poisson"
    burst_cv: float = 3.0          # gamma: coefficient of variation of gaps
    on_s: float = 5.0              # onoff: seconds on
    off_s: float = 5.0             # onoff: seconds off
    prompt: LengthDist = field(default_factory=lambda: LengthDist("fixed", value=512))
    output: LengthDist = field(default_factory=lambda: LengthDist("fixed", value=128))
    shared_prefix_tokens: int = 0  # a system prompt shared by every request of a group
    prefix_groups: int = 1
    session_turns: int = 1         # > 1: multi-turn chats sharing their history


@dataclass
class Workload:
    """Requests sorted by arrival. prefix_id -1: nothing shared; else the first prefix_tokens prompt tokens
    are identified by (prefix_id, position), so any request of the group holding them can reuse their KV."""

    arrival_s: np.ndarray
    prompt_tokens: np.ndarray
    output_tokens: np.ndarray
    prefix_id: np.ndarray
    prefix_tokens: np.ndarray

    def __len__(self) -> int:
        return int(self.arrival_s.size)

    def subset(self, idx: np.ndarray) -> Workload:
        return Workload(self.arrival_s[idx], self.prompt_tokens[idx], self.output_tokens[idx],
                        self.prefix_id[idx], self.prefix_tokens[idx])


def arrival_times(spec: WorkloadSpec, rng: np.random.Generator, n: int) -> np.ndarray:
    rate = spec.arrival_rate_per_s
    if spec.arrival == "poisson":
        gaps = rng.exponential(1.0 / rate, size=n)
    elif spec.arrival == "gamma":
        shape = 1.0 / spec.burst_cv**2  # gamma gaps: mean 1/rate, cv = 1/sqrt(shape)
        gaps = rng.gamma(shape, 1.0 / (rate * shape), size=n)
    else:
        period = spec.on_s + spec.off_s
        on_rate = rate * period / spec.on_s
        busy = np.cumsum(rng.exponential(1.0 / on_rate, size=n))  # time measured in "on" seconds
        cycles = np.floor(busy / spec.on_s)
        return busy + cycles * spec.off_s
    return np.cumsum(gaps)


def generate(spec: WorkloadSpec, rng: np.random.Generator) -> Workload:
    """Sample a workload (deterministic for a given generator state)."""
    n = spec.num_requests
    if spec.session_turns > 1:
        return _sessions(spec, rng)
    arrivals = arrival_times(spec, rng, n)
    prompt = spec.prompt.sample(rng, n)
    output = spec.output.sample(rng, n)
    if spec.shared_prefix_tokens > 0:
        prompt = prompt + spec.shared_prefix_tokens
        pid = rng.integers(0, max(1, spec.prefix_groups), size=n)
        ptok = np.full(n, spec.shared_prefix_tokens, dtype=np.int64)
    else:
        pid = np.full(n, -1, dtype=np.int64)
        ptok = np.zeros(n, dtype=np.int64)
    return Workload(arrivals, prompt, output, pid.astype(np.int64), ptok)


def _sessions(spec: WorkloadSpec, rng: np.random.Generator) -> Workload:
    """Sessions start at the arrival process; later turns follow after a think time (mean 5 s)."""
    turns = spec.session_turns
    n_sessions = -(-spec.num_requests // turns)
    starts = arrival_times(spec, rng, n_sessions) * turns  # keep the mean request rate
    rows: list[tuple[float, int, int, int, int]] = []
    for s in range(n_sessions):
        t, history = float(starts[s]), spec.shared_prefix_tokens
        for _ in range(turns):
            user = int(spec.prompt.sample(rng, 1)[0])
            out = int(spec.output.sample(rng, 1)[0])
            prompt = min(history + user, MAX_TOKENS_PER_REQUEST)
            rows.append((t, prompt, out, s, prompt))  # every prompt token is the session's, position by position
            history = prompt + out
            t += float(rng.exponential(5.0)) + 1.0
    rows.sort(key=lambda r: r[0])
    rows = rows[: spec.num_requests]
    arr = np.asarray(rows, dtype=float)
    return Workload(arr[:, 0], arr[:, 1].astype(np.int64), arr[:, 2].astype(np.int64),
                    arr[:, 3].astype(np.int64), arr[:, 4].astype(np.int64))


def from_trace(rows: list[Any]) -> Workload:
    """Replay (arrival_s, prompt_tokens, output_tokens[, prefix_id]) rows or dicts with those keys."""
    parsed = []
    for i, row in enumerate(rows):
        if isinstance(row, dict):
            vals = [row.get("arrival_s"), row.get("prompt_tokens"), row.get("output_tokens"), row.get("prefix_id")]
        elif isinstance(row, (list, tuple)) and 3 <= len(row) <= 4:
            vals = [*list(row), None][:4]
        else:
            raise WorkloadError(f"trace.{i}", "must be [arrival_s, prompt_tokens, output_tokens, prefix_id?]")
        parsed.append(_trace_row(vals, i))
    if not parsed:
        raise WorkloadError("trace", "must hold at least one request")
    parsed.sort(key=lambda r: r[0])
    arr = np.asarray(parsed, dtype=float)
    pid = arr[:, 3].astype(np.int64)
    # Requests of one prefix group share the shortest prompt of the group minus one token.
    ptok = np.zeros(len(parsed), dtype=np.int64)
    for g in np.unique(pid[pid >= 0]):
        members = pid == g
        ptok[members] = max(0, int(arr[members, 1].min()) - 1)
    return Workload(arr[:, 0], arr[:, 1].astype(np.int64), arr[:, 2].astype(np.int64), pid, ptok)


def _trace_row(vals: list[Any], i: int) -> tuple[float, int, int, int]:
    names = ("arrival_s", "prompt_tokens", "output_tokens", "prefix_id")
    for name, v in zip(names[:3], vals[:3], strict=True):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
            raise WorkloadError(f"trace.{i}.{name}", "must be a number")
    if not 0 <= vals[0] <= 1e7:
        raise WorkloadError(f"trace.{i}.arrival_s", "must be between 0 and 10,000,000")
    for name, v in zip(names[1:3], vals[1:3], strict=True):
        if int(v) != v or not 1 <= v <= MAX_TOKENS_PER_REQUEST:
            raise WorkloadError(f"trace.{i}.{name}", f"must be a whole number between 1 and {MAX_TOKENS_PER_REQUEST:,}")
    pid = vals[3]
    if pid is None:
        pid = -1
    elif isinstance(pid, bool) or not isinstance(pid, int) or not 0 <= pid < 2**31:
        raise WorkloadError(f"trace.{i}.prefix_id", "must be a non-negative integer or null")
    return float(vals[0]), int(vals[1]), int(vals[2]), int(pid)
