"""Physical sanity of catalog entries, shared by ``ModelConfig.clean()`` / ``GPU.clean()`` and the authoring API.

Errors (by model field name) block a save; warnings are returned next to a successful save. The one warning:
``head_dim × num_attention_heads ≠ hidden_size`` — allowed because several architectures differ by design
(Gemma-2 and Qwen3 widen the attention, gpt-oss narrows it, MLA uses separate head sizes).
"""

from __future__ import annotations

import math

GB, TB = 1e9, 1e12
# Decimal units; wide enough for anything from a laptop GPU to a future rack-scale part.
GPU_RANGES = {
    "memory_bytes": (1 * GB, 2 * TB, "1 GB", "2 TB"),
    "marketing_memory_bytes": (1 * GB, 2 * TB, "1 GB", "2 TB"),
    "hbm_bandwidth_bytes_per_s": (10 * GB, 100 * TB, "10 GB/s", "100 TB/s"),
    "interconnect_bandwidth_bytes_per_s": (10 * GB, 100 * TB, "10 GB/s", "100 TB/s"),
    "bf16_dense_flops": (1e12, 1e17, "1e12 FLOP/s", "1e17 FLOP/s"),
    "fp8_dense_flops": (1e12, 1e17, "1e12 FLOP/s", "1e17 FLOP/s"),
    "fp4_dense_flops": (1e12, 1e17, "1e12 FLOP/s", "1e17 FLOP/s"),
    "int8_dense_ops": (1e12, 1e17, "1e12 OP/s", "1e17 OP/s"),
    "price_per_hour_usd": (0.0, 10_000.0, "0 USD/h", "10,000 USD/h"),
}
# Upper bounds as for an inline model in the simulators (far above any published architecture).
MODEL_LIMITS = {
    "num_layers": 1000, "hidden_size": 131_072, "num_attention_heads": 4096, "num_kv_heads": 4096, "head_dim": 4096,
    "intermediate_size": 1_000_000, "vocab_size": 10_000_000, "max_position_embeddings": 10_000_000,
}
MODEL_POSITIVE = tuple(MODEL_LIMITS)
MAX_PARAMS = 1e14


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _add(errors: dict[str, list[str]], field: str, message: str) -> None:
    errors.setdefault(field, []).append(message)


def model_errors(row) -> dict[str, list[str]]:
    """Errors by field for a ModelConfig (or anything with its attributes); tolerant of missing values."""
    errors: dict[str, list[str]] = {}
    values = {name: _number(getattr(row, name, None)) for name in MODEL_POSITIVE}
    for name, value in values.items():
        if value is not None and not 1 <= value <= MODEL_LIMITS[name]:
            _add(errors, name, f"{name} must be a positive integer of at most {MODEL_LIMITS[name]:,}")
    heads, kv_heads = values["num_attention_heads"], values["num_kv_heads"]
    attention = getattr(row, "attention", None)
    if heads and kv_heads and heads >= 1 and kv_heads >= 1 and attention in ("mha", "gqa", "mqa"):
        if kv_heads > heads:
            _add(errors, "num_kv_heads", f"num_kv_heads ({kv_heads:g}) must be <= num_attention_heads ({heads:g})")
        elif heads % kv_heads:
            _add(errors, "num_kv_heads",
                 f"num_kv_heads ({kv_heads:g}) must divide num_attention_heads ({heads:g}): each KV head serves a whole group")
        elif attention == "mha" and kv_heads != heads:
            _add(errors, "num_kv_heads", "multi-head attention has one KV head per query head (num_kv_heads = num_attention_heads)")
        elif attention == "mqa" and kv_heads != 1:
            _add(errors, "num_kv_heads", "multi-query attention has a single KV head (num_kv_heads = 1)")
    if attention == "mla" and not (getattr(row, "kv_lora_rank", None) and getattr(row, "qk_rope_head_dim", None)):
        _add(errors, "kv_lora_rank", "MLA needs kv_lora_rank and qk_rope_head_dim")
    experts, per_token = _number(getattr(row, "num_experts", None)), _number(getattr(row, "experts_per_token", None))
    if experts:
        if not per_token:
            _add(errors, "experts_per_token", "a mixture-of-experts model needs experts_per_token")
        elif per_token > experts:
            _add(errors, "experts_per_token", f"experts_per_token ({per_token:g}) must be <= num_experts ({experts:g})")
        if not getattr(row, "moe_intermediate_size", None):
            _add(errors, "moe_intermediate_size", "a mixture-of-experts model needs moe_intermediate_size")
        layers, dense = values["num_layers"], _number(getattr(row, "first_k_dense_replace", None))
        if layers and dense is not None and dense > layers:
            _add(errors, "first_k_dense_replace", "first_k_dense_replace must be <= num_layers")
    elif per_token:
        _add(errors, "num_experts", "experts_per_token needs num_experts")
    mlp = getattr(row, "mlp", None)
    if mlp is not None and mlp not in ("gated", "plain"):
        _add(errors, "mlp", "mlp is 'gated' (gate, up, down) or 'plain' (fc1, fc2)")
    positions = getattr(row, "learned_position_embeddings", None)
    if positions is not None and not (_number(positions) and 1 <= positions <= MODEL_LIMITS["max_position_embeddings"]):
        _add(errors, "learned_position_embeddings",
             "learned_position_embeddings must be a positive number of rows (at most 10,000,000) or empty")
    if getattr(row, "sliding_window_pattern", None):
        if row.sliding_window_pattern not in ("all", "alternate"):
            _add(errors, "sliding_window_pattern", "sliding_window_pattern is 'all' or 'alternate'")
        if not getattr(row, "sliding_window", None):
            _add(errors, "sliding_window", "sliding_window_pattern needs sliding_window")
    total, active = _number(getattr(row, "total_params", None)), _number(getattr(row, "active_params", None))
    for name, value in (("total_params", total), ("active_params", active)):
        if getattr(row, name, None) is not None and (value is None or not 0 < value <= MAX_PARAMS):
            _add(errors, name, f"{name} must be a positive number of parameters (at most 1e14)")
    if total and active and 0 < active and 0 < total and active > total:
        _add(errors, "active_params", "active_params must be <= total_params")
    return errors


def model_warnings(row) -> list[str]:
    heads, head_dim, hidden = (_number(getattr(row, name, None)) for name in ("num_attention_heads", "head_dim", "hidden_size"))
    if heads and head_dim and hidden and heads * head_dim != hidden:
        return [f"head_dim × num_attention_heads = {head_dim:g} × {heads:g} = {head_dim * heads:g}, not hidden_size "
                f"({hidden:g}); fine for architectures that size attention separately (Gemma-2, Qwen3, gpt-oss, MLA), "
                f"otherwise check config.json"]
    return []


def gpu_errors(row) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for name, (low, high, low_text, high_text) in GPU_RANGES.items():
        raw = getattr(row, name, None)
        if raw is None:
            continue
        value = _number(raw)
        if value is None or not low <= value <= high:
            _add(errors, name, f"{name} must be between {low_text} and {high_text} (got {raw!r})")
    return errors


def gpu_warnings(row) -> list[str]:
    bf16, fp8 = _number(getattr(row, "bf16_dense_flops", None)), _number(getattr(row, "fp8_dense_flops", None))
    if bf16 and fp8 and fp8 < bf16:
        return ["fp8_dense_flops is below bf16_dense_flops; datasheets list FP8 at about twice BF16 (dense)"]
    return []
