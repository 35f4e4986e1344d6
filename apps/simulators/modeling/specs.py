"""Model and GPU specifications, dtype sizes and parameter counting.

ModelSpec / GPUSpec mirror fixtures/catalog/*.yaml. Parameter counting follows the
HF module layout (Llama/Qwen/Mistral/Gemma/DeepSeek-V3/gpt-oss/OPT): embeddings, attention
projections (MLA's low-rank q/kv projections included), the MLP (gated SwiGLU/GeGLU
gate + up + down = 3·h·F, or a plain fc1 + fc2 = 2·h·F for `mlp: "plain"`: OPT, GPT-2,
Falcon), every MoE expert counted for memory, router, norm weights and an untied LM head.
`bias: true` (OPT, GPT-2 style) adds a bias vector to every attention and MLP linear layer
and to every norm (LayerNorm's β); a learned absolute position table
(`learned_position_embeddings` rows, OPT: max_position_embeddings + 2) is counted like the
token embedding (a lookup, not a matmul). Partial biases (Qwen2 QKV only, gpt-oss) and
attention sinks are left out: each is < 0.1 % of the total.
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
# FP4 = NVIDIA's NVFP4: 4-bit E2M1 elements + one FP8 (E4M3) scale per 16-element block
# (+ one FP32 scale per tensor, negligible): (16·4 + 8) / 16 = 4.5 bits = 4.5/8 bytes.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "fp4": 4.5 / 8,
    "int4": 0.5,
    "mxfp4": 4.25 / 8,
}

CATALOG_DIR = Path(__file__).resolve().parents[3] / "fixtures" / "catalog"
ATTENTION_KINDS = ("mha", "gqa", "mqa", "mla")
MLP_KINDS = ("gated", "plain")  # gated: gate + up + down (3 matrices); plain: fc1 + fc2 (2 matrices)


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
    mlp: str = "gated"
    bias: bool = False
    learned_position_embeddings: int | None = None

    def __post_init__(self) -> None:
        for name in ("num_layers", "hidden_size", "num_attention_heads", "num_kv_heads",
                     "head_dim", "intermediate_size", "vocab_size"):
            if int(getattr(self, name)) <= 0:
                raise ModelInputError(name, "must be a positive integer")
        if self.mlp not in MLP_KINDS:
            raise ModelInputError("mlp", f"must be one of {', '.join(MLP_KINDS)}")
        if not isinstance(self.bias, bool):
            raise ModelInputError("bias", "must be true or false")
        if self.learned_position_embeddings is not None and int(self.learned_position_embeddings) <= 0:
            raise ModelInputError("learned_position_embeddings", "must be a positive integer or null")
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
    def mlp_matrices(self) -> int:
        """Weight matrices of h·F in one MLP (or expert): 3 gated, 2 plain."""
        return 3 if self.mlp == "gated" else 2

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
    # The datasheet's rounded capacity ("80 GB" = 80e9 B); memory_bytes is what the driver reports to CUDA
    # (cudaMemGetInfo total, the figure vLLM multiplies by gpu_memory_utilization).
    marketing_memory_bytes: float | None = None
    fp4_dense_flops: float | None = None  # dense FP4 tensor-core peak (Blackwell); None: no FP4 unit

    def __post_init__(self) -> None:
        for name in ("memory_bytes", "hbm_bandwidth_bytes_per_s", "bf16_dense_flops",
                     "interconnect_bandwidth_bytes_per_s"):
            if not float(getattr(self, name)) > 0:
                raise ModelInputError(name, "must be positive")

    def peak_flops(self, weight_dtype: str) -> float:
        """Dense tensor-core peak for the math a `weight_dtype` deployment runs.

        FP8 weights use FP8 GEMMs where the GPU has them (W8A8), else BF16 math
        (weight-only, e.g. Marlin on A100). INT8 uses INT8 GEMMs (W8A8). FP4 (NVFP4) runs
        FP4 GEMMs, weights and activations (W4A4), on GPUs with FP4 tensor cores (Blackwell)
        and is refused elsewhere. INT4 / MXFP4 are weight-only: dequantised to BF16 inside the
        kernel (vLLM's default MXFP4 MoE backend on Blackwell keeps BF16 activations too;
        VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1 would run them as MXFP8).
        """
        key = weight_dtype.lower()
        dtype_bytes(key, "weight_dtype")
        if key == "fp4":
            if not self.fp4_dense_flops:
                raise ModelInputError("weight_dtype", f"{self.name} has no FP4 tensor cores (NVFP4 needs Blackwell, "
                                      "e.g. B200); use mxfp4 or int4 (weight-only, 4-bit memory with BF16 math) "
                                      "or fp8")
            return float(self.fp4_dense_flops)
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
    """Parameter counts by component (whole model, unsharded); each component includes its biases."""

    embedding: float
    attention: float
    dense_mlp: float
    routed_experts: float
    shared_experts: float
    router: float
    norms: float
    lm_head: float
    total: float
    active: float  # parameters multiplied per token (LM head in, embedding and position lookups out)
    expert_params_each: float
    derivation: str
    position_embedding: float = 0.0  # learned absolute position table (a lookup)
    biases: float = 0.0  # the bias vectors inside the components above (linear layers and LayerNorm β)


def attention_params_per_layer(m: ModelSpec) -> float:
    """Attention weights of one layer, plus the q/k/v/out biases when `bias` (not for MLA: no MLA model has them)."""
    h = m.hidden_size
    if m.attention == "mla":
        nope, rope, v = m.qk_nope_head_dim or 0, m.qk_rope_head_dim or 0, m.v_head_dim or 0
        H, r_kv = m.num_attention_heads, m.kv_lora_rank or 0
        q = h * m.q_lora_rank + m.q_lora_rank * H * (nope + rope) if m.q_lora_rank else h * H * (nope + rope)
        kv = h * (r_kv + rope) + r_kv * H * (nope + v)
        return float(q + kv + H * v * h)
    return float(2 * h * _q_width(m) + 2 * h * _kv_width(m) + _attention_bias(m))


def _q_width(m: ModelSpec) -> int:
    return m.num_attention_heads * m.head_dim


def _kv_width(m: ModelSpec) -> int:
    return m.num_kv_heads * m.head_dim


def _attention_bias(m: ModelSpec) -> int:
    """q, k, v biases (their output widths) + the output projection's bias (h)."""
    return _q_width(m) + 2 * _kv_width(m) + m.hidden_size if m.bias and m.attention != "mla" else 0


def mlp_params(m: ModelSpec, ffn: int) -> float:
    """One MLP (or expert) of inner width `ffn`: 3·h·F gated / 2·h·F plain, plus its biases
    ((matrices − 1)·F on the up side + h on the down projection) when `bias`."""
    weights = m.mlp_matrices * m.hidden_size * ffn
    return float(weights + ((m.mlp_matrices - 1) * ffn + m.hidden_size if m.bias else 0))


def count_params(m: ModelSpec) -> ParamCounts:
    """Count parameters from the config (see module docstring for what is included)."""
    h, L = m.hidden_size, m.num_layers
    attn = L * attention_params_per_layer(m)
    moe_layers = m.num_moe_layers
    dense_layers = L - moe_layers
    dense_mlp = dense_layers * mlp_params(m, m.intermediate_size)
    expert_each = mlp_params(m, m.moe_intermediate_size or 0) if m.is_moe else 0.0
    routed = moe_layers * (m.num_experts or 0) * expert_each
    shared = moe_layers * (m.num_shared_experts or 0) * expert_each
    router = moe_layers * float(h * (m.num_experts or 0))
    extra_norms = (m.q_lora_rank or 0) + (m.kv_lora_rank or 0)
    per_norm = 2 if m.bias else 1  # LayerNorm: γ and β; RMSNorm: γ
    norms = per_norm * (L * (2.0 * h + extra_norms) + h)
    embedding = float(m.vocab_size * h)
    positions = float((m.learned_position_embeddings or 0) * h)
    lm_head = 0.0 if m.tie_word_embeddings else embedding
    total = embedding + positions + attn + dense_mlp + routed + shared + router + norms + lm_head
    biases = 0.0
    if m.bias:
        mlp_bias = (m.mlp_matrices - 1) * m.intermediate_size + h
        expert_bias = ((m.mlp_matrices - 1) * (m.moe_intermediate_size or 0) + h) if m.is_moe else 0
        biases = float(L * _attention_bias(m) + dense_layers * mlp_bias
                       + moe_layers * ((m.num_experts or 0) + (m.num_shared_experts or 0)) * expert_bias
                       + norms / 2)
    routed_active = moe_layers * (m.experts_per_token or 0) * expert_each
    head_compute = embedding  # the LM head matmul runs even when tied to the embedding
    # Same convention as DeepSeek's README_WEIGHTS (36.6B incl. the 0.9B output head) and
    # the gpt-oss model card (5.13B): the input embedding is a lookup, not a matmul.
    active = attn + dense_mlp + routed_active + shared + router + norms + head_compute
    matrices = f"{m.mlp_matrices}·h·F" + (" + biases" if m.bias else "")
    derivation = (
        f"{m.name}: embedding V·h = {m.vocab_size:,}·{h:,} = {embedding:,.0f}; "
        + (f"learned positions {m.learned_position_embeddings:,}·{h:,} = {positions:,.0f}; " if positions else "")
        + f"attention {L} layers × {attention_params_per_layer(m):,.0f} = {attn:,.0f}; "
        f"dense MLP ({m.mlp}) {dense_layers} × {matrices} = {dense_mlp:,.0f}; "
        f"routed experts {moe_layers} layers × {m.num_experts or 0} × {m.mlp_matrices}·h·F_moe = {routed:,.0f}; "
        f"shared experts {shared:,.0f}; router {router:,.0f}; "
        f"norms {norms:,.0f}{' (LayerNorm γ and β)' if m.bias else ''}; "
        f"LM head {'tied (0)' if m.tie_word_embeddings else f'{lm_head:,.0f}'}; "
        + (f"biases included above {biases:,.0f}; " if m.bias else "")
        + f"total = {total:,.0f} params ({total / 1e9:.2f} B); active per token (matmul params, no embedding "
        f"or position lookup) = {active / 1e9:.2f} B"
    )
    return ParamCounts(embedding, attn, dense_mlp, routed, shared, router, norms, lm_head,
                       total, active, expert_each, derivation, positions, biases)


def kv_heads_per_rank(m: ModelSpec, tp: int) -> int:
    """KV heads each tensor-parallel rank stores: ceil(n_kv / TP), never below one."""
    return max(1, math.ceil(m.num_kv_heads / tp))
