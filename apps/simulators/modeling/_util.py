"""Validation and formatting shared by the modeling modules (private)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import ModelInputError

MAX_CONTEXT_TOKENS = 10_000_000
MAX_BATCH = 1_000_000


def check_array(
    field: str,
    value: Any,
    *,
    minimum: float = 0.0,
    maximum: float = float("inf"),
    allow_equal_min: bool = False,
) -> np.ndarray:
    """Return `value` as a float array, raising ModelInputError if any element is out of range."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ModelInputError(field, "must be a number or an array of numbers") from exc
    if not np.all(np.isfinite(arr)):
        raise ModelInputError(field, "must be finite")
    too_low = arr < minimum if allow_equal_min else arr <= minimum
    if np.any(too_low):
        op = ">=" if allow_equal_min else ">"
        raise ModelInputError(field, f"must be {op} {minimum:g}")
    if np.any(arr > maximum):
        raise ModelInputError(field, f"must be <= {maximum:g}")
    return arr


def positive(field: str, value: Any, maximum: float = float("inf")) -> np.ndarray:
    return check_array(field, value, maximum=maximum)


def non_negative(field: str, value: Any, maximum: float = float("inf")) -> np.ndarray:
    return check_array(field, value, maximum=maximum, allow_equal_min=True)


def fraction(field: str, value: Any) -> np.ndarray:
    return check_array(field, value, maximum=1.0)


def out(x: np.ndarray) -> float | np.ndarray:
    """Plain float for 0-d results, the array otherwise."""
    arr = np.asarray(x)
    return float(arr) if arr.ndim == 0 else arr


def fmt(x: Any, unit: str = "", digits: int = 4) -> str:
    """Human-readable number (or array summary) for derivation strings."""
    arr = np.asarray(x, dtype=float)
    suffix = f" {unit}" if unit else ""
    if arr.ndim == 0 or arr.size == 1:
        return _num(float(arr.reshape(-1)[0]), digits) + suffix
    lo, hi = float(arr.min()), float(arr.max())
    return f"[{_num(lo, digits)} … {_num(hi, digits)}]{suffix} ({arr.size} values)"


def _num(v: float, digits: int) -> str:
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    if 1e-3 <= abs(v) < 1e6:
        return f"{v:,.{digits}g}"
    return f"{v:.{digits - 1}e}"
