"""Units the numeric checker understands: each maps to (dimension, factor to the SI base unit)."""

from __future__ import annotations

import re

UNITS: dict[str, tuple[str, float]] = {
    "": ("dimensionless", 1.0),
    "%": ("dimensionless", 0.01),
    "x": ("dimensionless", 1.0),
    "×": ("dimensionless", 1.0),
    "bit": ("bytes", 1 / 8),
    "Kbit": ("bytes", 1e3 / 8),
    "Mbit": ("bytes", 1e6 / 8),
    "Gbit": ("bytes", 1e9 / 8),
    "Tbit": ("bytes", 1e12 / 8),
    "B": ("bytes", 1.0),
    "KB": ("bytes", 1e3),
    "kB": ("bytes", 1e3),
    "MB": ("bytes", 1e6),
    "GB": ("bytes", 1e9),
    "TB": ("bytes", 1e12),
    "PB": ("bytes", 1e15),
    "KiB": ("bytes", 2.0**10),
    "MiB": ("bytes", 2.0**20),
    "GiB": ("bytes", 2.0**30),
    "TiB": ("bytes", 2.0**40),
    "ns": ("seconds", 1e-9),
    "us": ("seconds", 1e-6),
    "µs": ("seconds", 1e-6),
    "ms": ("seconds", 1e-3),
    "s": ("seconds", 1.0),
    "min": ("seconds", 60.0),
    "h": ("seconds", 3600.0),
    "FLOP": ("flop", 1.0),
    "GFLOP": ("flop", 1e9),
    "TFLOP": ("flop", 1e12),
    "PFLOP": ("flop", 1e15),
    "FLOP/s": ("flop_per_s", 1.0),
    "GFLOP/s": ("flop_per_s", 1e9),
    "TFLOP/s": ("flop_per_s", 1e12),
    "PFLOP/s": ("flop_per_s", 1e15),
    "TFLOPS": ("flop_per_s", 1e12),
    "PFLOPS": ("flop_per_s", 1e15),
    "B/s": ("bytes_per_s", 1.0),
    "KB/s": ("bytes_per_s", 1e3),
    "MB/s": ("bytes_per_s", 1e6),
    "GB/s": ("bytes_per_s", 1e9),
    "TB/s": ("bytes_per_s", 1e12),
    "GiB/s": ("bytes_per_s", 2.0**30),
    "Gbit/s": ("bytes_per_s", 1e9 / 8),
    "Gb/s": ("bytes_per_s", 1e9 / 8),
    "Tbit/s": ("bytes_per_s", 1e12 / 8),
    "tokens": ("tokens", 1.0),
    "token": ("tokens", 1.0),
    "K tokens": ("tokens", 1e3),
    "tokens/s": ("tokens_per_s", 1.0),
    "requests/s": ("requests_per_s", 1.0),
    "req/s": ("requests_per_s", 1.0),
    "GPUs": ("gpus", 1.0),
    "GPU": ("gpus", 1.0),
    "USD": ("usd", 1.0),
    "$": ("usd", 1.0),
    "USD/h": ("usd_per_h", 1.0),
    "$/h": ("usd_per_h", 1.0),
    "params": ("params", 1.0),
    "B params": ("params", 1e9),
    "layers": ("count", 1.0),
    "blocks": ("count", 1.0),
    "experts": ("count", 1.0),
    "sequences": ("count", 1.0),
    "requests": ("count", 1.0),
}

ALIASES = {"bytes": "B", "byte": "B", "sec": "s", "second": "s", "seconds": "s", "μs": "µs", "flops": "FLOP", "FLOPs": "FLOP"}
_NUMBER_WITH_UNIT = re.compile(r"^\s*([-+]?(?:\d[\d,_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")


class UnitError(ValueError):
    pass


def canonical_unit(unit: str) -> str:
    unit = unit.strip()
    unit = ALIASES.get(unit, unit)
    if unit not in UNITS:
        raise UnitError(f"unknown unit '{unit}'; known units: {', '.join(sorted(u for u in UNITS if u))}")
    return unit


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Converts between units of the same dimension (GiB to bytes, ms to s); refuses across dimensions."""
    source, target = canonical_unit(from_unit), canonical_unit(to_unit)
    source_dim, source_factor = UNITS[source]
    target_dim, target_factor = UNITS[target]
    if source_dim != target_dim:
        raise UnitError(f"'{from_unit}' is a {source_dim} unit but the answer is in {target_dim} ('{to_unit}')")
    return value * source_factor / target_factor


def parse_quantity(text: str) -> tuple[float, str | None]:
    """'16 GiB' -> (16.0, 'GiB'); '131,072' -> (131072.0, None)."""
    match = _NUMBER_WITH_UNIT.match(text)
    if not match:
        raise UnitError("expected a number, optionally followed by a unit, e.g. '16 GiB'")
    number = float(match.group(1).replace(",", "").replace("_", ""))
    unit = match.group(2) or None
    return number, unit
