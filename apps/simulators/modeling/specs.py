"""Model and GPU specifications, dtype sizes and parameter counting.

ModelSpec / GPUSpec mirror fixtures/catalog/*.yaml. Parameter counting follows the
HF module layout (Llama/Qwen/Mistral/Gemma/DeepSeek-V3/gpt-oss): embeddings, attention
projections (MLA's low-rank q/kv projections included), gated MLP = 3·h·F, every MoE
expert counted for memory, router, RMSNorm weights and an untied LM head. Biases
(Qwen2 QKV, gpt-oss) and attention sinks are left out: each is < 0.1 % of the total.
The counts reproduce the publishers' totals within ~1 % (tested).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from .errors import ModelInputError

# Bytes per element. MXFP4 = 4-bit elements + one shared 8-bit (E8M0) scale per
# 32-element block: (32·4 + 8) / 32 bits = 4.25 bits = 4.25/8 bytes (OCP MX spec v1.0).
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "mxfp4": 4.25 / 8,
}

CATALOG_DIR = Path(__file__).resolve().parents[3] / "fixtures" / "catalog"
ATTENTION_KINDS = ("mha", "gqa", "mqa", "mla")


def dtype_bytes(dtype: str, field: str = "dtype") -> float:
    """Bytes per element of `dtype`; ModelInputError naming `field` if unknown."""
    key = str(dtype).lower()
    if key not in DTYPE_BYTES:
        known = ", ".join(DTYPE_BYTES)
        raise ModelInputError(field, f"unknown dtype {dtype!r}; use one of {known}")
    return DTYPE_BYTES[key]


@dataclass(frozen=True)
class ModelSpec:
    slug: str
    name: str
    hf_id: str
    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    max_position_embeddings: int
    tie_word_embeddings: bool
    attention: str
    total_params: float
    active_params: float
    source: str
    moe_intermediate_size: int | None = None
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None
    sliding_window: int | None = None
    sliding_window_pattern: str | None = None
    num_experts: int | None = None
    num_shared_experts: int | None = None
    experts_per_token: int | None = None
    first_k_dense_replace: int | None = None

    def __post_init__(self) -> None:
        for name in ("num_layers", "hidden_size", "num_attention_heads", "num_kv_heads",
                     "head_dim", "intermediate_size", "vocab_size"):
            if int(getattr(self, name)) <= 0:
                raise ModelInputError(name, "must be a positive integer")
        if self.attention not in ATTENTION_KINDS:
            raise ModelInputError("attention", f"must be one of {', '.join(ATTENTION_KINDS)}")
        if self.attention == "mla" and not (self.kv_lora_rank and self.qk_rope_head_dim):
            raise ModelInputError("kv_lora_rank", "MLA needs kv_lora_rank and qk_rope_head_dim")
        if self.sliding_window_pattern not in (None, "all", "alternate"):
            raise ModelInputError("sliding_window_pattern", "must be null, 'all' or 'alternate'")
        if self.is_moe and not (self.experts_per_token and self.moe_intermediate_size):
            raise ModelInputError("experts_per_token", "MoE needs experts_per_token and moe_intermediate_size")

    @property
    def is_moe(self) -> bool:
        return bool(self.num_experts)

    @property
    def num_sliding_layers(self) -> int:
        """Layers that keep only the last `sliding_window` tokens of KV."""
        if not self.sliding_window or not self.sliding_window_pattern:
            return 0
        if self.sliding_window_pattern == "all":
            return self.num_layers
        return (self.num_layers + 1) // 2  # layers 0, 2, 4, ... are local

    @property
    def num_moe_layers(self) -> int:
        return self.num_layers - (self.first_k_dense_replace or 0) if self.is_moe else 0


@dataclass(frozen=True)
class GPUSpec:
    slug: str
    name: str
    vendor: str
    memory_bytes: float
    hbm_bandwidth_bytes_per_s: float
    bf16_dense_flops: float
    int8_dense_ops: float
    interconnect_bandwidth_bytes_per_s: float
    price_per_hour_usd: float
    source: str
    fp8_dense_flops: float | None = None
    price_note: str = ""

    def __post_init__(self) -> None:
        for name in ("memory_bytes", "hbm_bandwidth_bytes_per_s", "bf16_dense_flops",
                     "interconnect_bandwidth_bytes_per_s"):
            if not float(getattr(self, name)) > 0:
                raise ModelInputError(name, "must be positive")

    def peak_flops(self, weight_dtype: str) -> float:
        """Dense tensor-core peak for the math a `weight_dtype` deployment runs.

        FP8 weights use FP8 GEMMs where the GPU has them (W8A8), else BF16 math
        (weight-only, e.g. Marlin on A100). INT8 uses INT8 GEMMs (W8A8). INT4 / MXFP4
        are weight-only on most stacks: dequantised to BF16 inside the kernel.
        """
        key = weight_dtype.lower()
        dtype_bytes(key, "weight_dtype")
        if key == "fp8" and self.fp8_dense_flops:
            return float(self.fp8_dense_flops)
        if key == "int8" and self.int8_dense_ops:
            return float(self.int8_dense_ops)
        return float(self.bf16_dense_flops)


def _build(cls: type, row: dict[str, Any]) -> Any:
    names = {f.name for f in fields(cls)}
    unknown = set(row) - names
    if unknown:
        raise ModelInputError(sorted(unknown)[0], f"unknown catalog field for {cls.__name__}")
    numeric = {k: (float(v) if isinstance(v, str) and k.endswith(("params", "bytes", "flops", "ops", "per_s")) else v)
               for k, v in row.items()}
    return cls(**numeric)


def load_catalog(path: str | Path) -> dict[str, ModelSpec | GPUSpec]:
    """Read a catalog YAML list; rows with `hbm_bandwidth_bytes_per_s` are GPUs, others models."""
    rows = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or []
    if not isinstance(rows, list):
        raise ModelInputError("catalog", f"{path} must hold a YAML list")
    specs: dict[str, ModelSpec | GPUSpec] = {}
    for row in rows:
        cls = GPUSpec if "hbm_bandwidth_bytes_per_s" in row else ModelSpec
        spec = _build(cls, row)
        specs[spec.slug] = spec
    return specs


def load_models(path: str | Path | None = None) -> dict[str, ModelSpec]:
    return load_catalog(path or CATALOG_DIR / "models.yaml")  # type: ignore[return-value]


def load_gpus(path: str | Path | None = None) -> dict[str, GPUSpec]:
    return load_catalog(path or CATALOG_DIR / "gpus.yaml")  # type: ignore[return-value]


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts by component (whole model, unsharded)."""

    embedding: float
    attention: float
    dense_mlp: float
    routed_experts: float
    shared_experts: float
    router: float
    norms: float
    lm_head: float
    total: float
    active: float  # parameters multiplied per token (LM head in, embedding lookup out)
    expert_params_each: float
    derivation: str


def attention_params_per_layer(m: ModelSpec) -> float:
    h = m.hidden_size
    if m.attention == "mla":
        nope, rope, v = m.qk_nope_head_dim or 0, m.qk_rope_head_dim or 0, m.v_head_dim or 0
        H, r_kv = m.num_attention_heads, m.kv_lora_rank or 0
        q = h * m.q_lora_rank + m.q_lora_rank * H * (nope + rope) if m.q_lora_rank else h * H * (nope + rope)
        kv = h * (r_kv + rope) + r_kv * H * (nope + v)
        return float(q + kv + H * v * h)
    q_width = m.num_attention_heads * m.head_dim
    kv_width = m.num_kv_heads * m.head_dim
    return float(2 * h * q_width + 2 * h * kv_width)


def count_params(m: ModelSpec) -> ParamCounts:
    """Count parameters from the config (see module docstring for what is included)."""
    h, L = m.hidden_size, m.num_layers
    attn = L * attention_params_per_layer(m)
    moe_layers = m.num_moe_layers
    dense_layers = L - moe_layers
    dense_mlp = dense_layers * 3.0 * h * m.intermediate_size
    expert_each = 3.0 * h * (m.moe_intermediate_size or 0)
    routed = moe_layers * (m.num_experts or 0) * expert_each
    shared = moe_layers * (m.num_shared_experts or 0) * expert_each
    router = moe_layers * float(h * (m.num_experts or 0))
    extra_norms = (m.q_lora_rank or 0) + (m.kv_lora_rank or 0)
    norms = L * (2.0 * h + extra_norms) + h
    embedding = float(m.vocab_size * h)
    lm_head = 0.0 if m.tie_word_embeddings else embedding
    total = embedding + attn + dense_mlp + routed + shared + router + norms + lm_head
    routed_active = moe_layers * (m.experts_per_token or 0) * expert_each
    head_compute = embedding  # the LM head matmul runs even when tied to the embedding
    # Same convention as DeepSeek's README_WEIGHTS (36.6B incl. the 0.9B output head) and
    # the gpt-oss model card (5.13B): the input embedding is a lookup, not a matmul.
    active = attn + dense_mlp + routed_active + shared + router + norms + head_compute
    derivation = (
        f"{m.name}: embedding V·h = {m.vocab_size:,}·{h:,} = {embedding:,.0f}; "
        f"attention {L} layers × {attention_params_per_layer(m):,.0f} = {attn:,.0f}; "
        f"dense MLP {dense_layers} × 3·h·F = {dense_mlp:,.0f}; "
        f"routed experts {moe_layers} layers × {m.num_experts or 0} × 3·h·F_moe = {routed:,.0f}; "
        f"shared experts {shared:,.0f}; router {router:,.0f}; norms {norms:,.0f}; "
        f"LM head {'tied (0)' if m.tie_word_embeddings else f'{lm_head:,.0f}'}; "
        f"total = {total:,.0f} params ({total / 1e9:.2f} B); active per token (matmul params, no embedding lookup) = {active / 1e9:.2f} B"
    )
    return ParamCounts(embedding, attn, dense_mlp, routed, shared, router, norms, lm_head,
                       total, active, expert_each, derivation)


def kv_heads_per_rank(m: ModelSpec, tp: int) -> int:
    """KV heads each tensor-parallel rank stores: ceil(n_kv / TP), never below one."""
    return max(1, math.ceil(m.num_kv_heads / tp))
