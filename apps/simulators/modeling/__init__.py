"""Framework-free numpy models of LLM serving (KV cache, fit, roofline, capacity, ...).

Every public result carries a `derivation` string with the formula, the substituted
numbers and units. Bad input raises ModelInputError(field, message).
"""

from .capacity import CapacityResult, plan_capacity
from .collectives import CollectiveResult, collective_time
from .curves import CurveResult, throughput_latency_curve
from .errors import ModelInputError
from .kv import KVCacheResult, kv_bytes_per_sequence, kv_bytes_per_token_per_layer, kv_cache
from .memory import (
    Feasibility,
    FitResult,
    MinTPResult,
    activation_peak_bytes,
    feasibility,
    fit,
    min_tp,
    tp_is_valid,
    weight_bytes,
)
from .moe import MoELoadResult, distinct_experts, expert_load, routing_probabilities
from .paged_kv import PagedKVResult, blocks_needed, paged_vs_contiguous
from .parallel import Parallelism, parallelism
from .prefix_cache import PrefixCacheResult, block_hashes, lru_hit_rate, synthetic_prompts
from .roofline import (
    FAMILY_PRIORS,
    FITTED_PRIORS,
    PRIORS,
    EfficiencyPriors,
    Prior,
    PriorBasis,
    StepResult,
    compute_dtype,
    expected_distinct_experts,
    gpu_family,
    prior_basis,
    priors_for,
    step_time,
)
from .serve_config import ServeConfig, vllm_serve_config
from .specs import (
    DTYPE_BYTES,
    GPUSpec,
    ModelSpec,
    ParamCounts,
    count_params,
    dtype_bytes,
    load_catalog,
    load_gpus,
    load_models,
)
from .speculative import SpeculativeResult, expected_tokens_per_step, speculative_speedup

__all__ = [name for name in dir() if not name.startswith("_")]
