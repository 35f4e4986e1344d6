"""KV-cache sizing for MHA / GQA / MQA, MLA and sliding-window layers.

* MHA/GQA/MQA: 2 (K and V) · L · n_kv · d_h · B per token, with d_h read from the
  config (Qwen3-32B: 128, not hidden/heads = 80). Under tensor parallelism each rank
  holds ceil(n_kv / TP) heads, never fewer than one (heads are replicated when TP > n_kv).
* MLA (DeepSeek-V2/V3): one compressed latent per token per layer,
  L · (kv_lora_rank + qk_rope_head_dim) · B, shared by all heads and therefore *not*
  sharded by TP (AIConfigurator `kv_bytes_per_token`, BLIS `KVBytesPerToken`).
* Sliding window: a local layer keeps only min(context, window) tokens.
Sources: SIMULATOR-NOTES §2.1; DeepSeek-V2 paper (arXiv:2405.04434) §2.1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._util import MAX_BATCH, MAX_CONTEXT_TOKENS, fmt, out, positive
from .specs import ModelSpec, dtype_bytes, kv_heads_per_rank


def kv_bytes_per_token_per_layer(model: ModelSpec, kv_dtype: str = "bf16", tp: int = 1) -> float:
    """Bytes one token adds to one layer's cache on one GPU."""
    b = dtype_bytes(kv_dtype, "kv_dtype")
    _check_tp(tp)
    if model.attention == "mla":
        return float((model.kv_lora_rank or 0) + (model.qk_rope_head_dim or 0)) * b
    return 2.0 * kv_heads_per_rank(model, int(tp)) * model.head_dim * b


def kv_bytes_per_sequence(
    model: ModelSpec, context_tokens, kv_dtype: str = "bf16", tp: int = 1
) -> float | np.ndarray:
    """Bytes of KV one sequence of `context_tokens` holds on one GPU (vectorized)."""
    ctx = positive("context_tokens", context_tokens, MAX_CONTEXT_TOKENS)
    per_layer = kv_bytes_per_token_per_layer(model, kv_dtype, tp)
    local = model.num_sliding_layers
    held_local = np.minimum(ctx, model.sliding_window or 0) if local else 0.0
    return out(per_layer * ((model.num_layers - local) * ctx + local * held_local))


@dataclass(frozen=True)
class KVCacheResult:
    bytes_per_token: float                 # whole model, one token, all layers (TP = 1)
    bytes_per_token_per_gpu: float         # one rank's share at this TP
    bytes_per_sequence_per_gpu: float | np.ndarray
    total_bytes_per_gpu: float | np.ndarray
    total_bytes_all_gpus: float | np.ndarray
    heads_per_gpu: int
    sharded_by_tp: bool
    derivation: str


def kv_cache(
    model: ModelSpec,
    *,
    context_tokens,
    batch=1,
    kv_dtype: str = "bf16",
    tp: int = 1,
) -> KVCacheResult:
    """KV bytes per token, per sequence and for a batch of sequences (vectorized)."""
    _check_tp(tp)
    n = positive("batch", batch, MAX_BATCH)
    b = dtype_bytes(kv_dtype, "kv_dtype")
    per_token = kv_bytes_per_token_per_layer(model, kv_dtype, 1) * model.num_layers
    per_token_gpu = kv_bytes_per_token_per_layer(model, kv_dtype, tp) * model.num_layers
    per_seq = np.asarray(kv_bytes_per_sequence(model, context_tokens, kv_dtype, tp))
    total_gpu = per_seq * n
    heads = 1 if model.attention == "mla" else kv_heads_per_rank(model, int(tp))
    return KVCacheResult(
        bytes_per_token=per_token,
        bytes_per_token_per_gpu=per_token_gpu,
        bytes_per_sequence_per_gpu=out(per_seq),
        total_bytes_per_gpu=out(total_gpu),
        total_bytes_all_gpus=out(total_gpu * tp),
        heads_per_gpu=heads,
        sharded_by_tp=model.attention != "mla",
        derivation=_derivation(model, b, kv_dtype, tp, per_token, per_token_gpu, context_tokens, n, total_gpu),
    )


def _check_tp(tp) -> None:
    positive("tp", tp, 1024)


def _derivation(model, b, kv_dtype, tp, per_token, per_token_gpu, ctx, n, total_gpu) -> str:
    L = model.num_layers
    if model.attention == "mla":
        head = (
            f"MLA: L · (kv_lora_rank + qk_rope_head_dim) · B = {L} · ({model.kv_lora_rank} + "
            f"{model.qk_rope_head_dim}) · {b:g} B ({kv_dtype}) = {per_token:,.0f} B/token; the latent is "
            f"shared by all heads, so every one of TP={tp} ranks stores all of it"
        )
    else:
        heads = kv_heads_per_rank(model, int(tp))
        head = (
            f"{model.attention.upper()}: 2 (K,V) · L · n_kv · d_h · B = 2 · {L} · {model.num_kv_heads} · "
            f"{model.head_dim} · {b:g} B ({kv_dtype}) = {per_token:,.0f} B/token; per GPU at TP={tp}: "
            f"ceil({model.num_kv_heads}/{tp}) = {heads} head(s) → {per_token_gpu:,.0f} B/token"
        )
    window = ""
    if model.num_sliding_layers:
        window = (
            f"; {model.num_sliding_layers} of {L} layers are sliding-window and hold "
            f"min(context, {model.sliding_window}) tokens"
        )
    return f"{head}{window}; context {fmt(ctx, 'tokens')} × batch {fmt(n)} → {fmt(total_gpu, 'B')} per GPU"
