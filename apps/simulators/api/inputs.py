"""Request serializers: the shape and range of every simulator input, inline specs included (one definition each)."""

from dataclasses import fields as dataclass_fields

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.exceptions import InvalidInput
from apps.core.models import Status as ContentStatus
from apps.core.schema import at_least_one, at_most_one, exactly_one, given
from apps.core.serializers import documented_json
from apps.simulators import catalog
from apps.simulators.engine.cluster import ROUTERS
from apps.simulators.engine.grid import GRID_KEYS, KV_LINKS, MAX_POINTS, PD_KEYS, POOL_TP_KEYS, grid_size
from apps.simulators.engine.workload import (
    ARRIVALS,
    MAX_TOKENS_PER_REQUEST,
    WorkloadError,
    from_trace,
    length_dist,
)
from apps.simulators.engine_jobs import JOB_MAX_REQUESTS
from apps.simulators.modeling.capacity import MAX_UTILIZATION
from apps.simulators.modeling.collectives import ALGORITHMS, OPS
from apps.simulators.modeling.specs import ATTENTION_KINDS, DTYPE_BYTES, MLP_KINDS, GPUSpec, ModelSpec
from apps.simulators.modeling.vllm_defaults import BLOCK_SIZE, GPU_MEMORY_UTILIZATION
from apps.simulators.models import GPU, ModelConfig
from apps.simulators.simulation import MAX_TOKENS, workload_build

DTYPES = list(DTYPE_BYTES)
KV_DTYPES = ("bf16", "fp16", "fp8")  # what the engine's KV cache stores
TP_CHOICES = [(tp, str(tp)) for tp in (1, 2, 4, 8, 16)]
CAPACITY_TP_CHOICES = TP_CHOICES[:4]  # capacity planning stays inside one 8-GPU node
MAX_CONTEXT = 10_000_000
MAX_BATCH = 1_000_000


def pos_int(maximum: int, **kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=maximum, **kwargs)


def pos_float(maximum: float, **kwargs) -> serializers.FloatField:
    return serializers.FloatField(min_value=1e-12, max_value=maximum, **kwargs)


def opt_int(maximum: int) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=maximum, required=False, allow_null=True)



# ---------------------------------------------------------------- catalog authoring (authors and superusers)


def _catalog_fields(spec_cls) -> list[str]:
    """The catalog file's fields (the modeling spec's) plus the publication status."""
    return [f.name for f in dataclass_fields(spec_cls)] + ["status"]


class ModelConfigWriteSerializer(serializers.ModelSerializer):
    """A catalog model as in fixtures/catalog/models.yaml; checked for physical sense on save."""

    status = serializers.ChoiceField(choices=ContentStatus.choices, required=False,
                                     help_text="draft (authors only) or published; new entries default to draft")

    class Meta:
        model = ModelConfig
        fields = _catalog_fields(ModelSpec)
        extra_kwargs = {
            "learned_position_embeddings": {"max_value": MAX_CONTEXT},
            "total_params": {"min_value": 1, "max_value": 1e14},
            "active_params": {"min_value": 1, "max_value": 1e14},
        }


class GPUWriteSerializer(serializers.ModelSerializer):
    """A catalog GPU as in fixtures/catalog/gpus.yaml (decimal SI units, dense FLOPs); checked for sane ranges."""

    status = serializers.ChoiceField(choices=ContentStatus.choices, required=False,
                                     help_text="draft (authors only) or published; new entries default to draft")

    class Meta:
        model = GPU
        fields = _catalog_fields(GPUSpec)
        extra_kwargs = {name: {"min_value": 0, "max_value": 1e18} for name in (
            "memory_bytes", "marketing_memory_bytes", "hbm_bandwidth_bytes_per_s", "bf16_dense_flops", "fp8_dense_flops",
            "fp4_dense_flops", "int8_dense_ops", "interconnect_bandwidth_bytes_per_s", "price_per_hour_usd")}




# ---------------------------------------------------------------- inline specs


class InlineModelSerializer(serializers.Serializer):
    """A model architecture given inline (the fields of a catalog model; params are counted from them)."""

    name = serializers.CharField(max_length=120, required=False)
    num_layers = pos_int(1000)
    hidden_size = pos_int(131_072)
    num_attention_heads = pos_int(4096)
    num_kv_heads = pos_int(4096)
    head_dim = pos_int(4096)
    intermediate_size = pos_int(1_000_000)
    vocab_size = pos_int(10_000_000)
    max_position_embeddings = pos_int(MAX_CONTEXT, default=131_072)
    tie_word_embeddings = serializers.BooleanField(default=False)
    attention = serializers.ChoiceField(choices=ATTENTION_KINDS)
    moe_intermediate_size = opt_int(1_000_000)
    kv_lora_rank = opt_int(65_536)
    q_lora_rank = opt_int(65_536)
    qk_rope_head_dim = opt_int(4096)
    qk_nope_head_dim = opt_int(4096)
    v_head_dim = opt_int(4096)
    sliding_window = opt_int(MAX_CONTEXT)
    sliding_window_pattern = serializers.ChoiceField(choices=["all", "alternate"], required=False, allow_null=True)
    num_experts = opt_int(4096)
    num_shared_experts = opt_int(4096)
    experts_per_token = opt_int(4096)
    first_k_dense_replace = serializers.IntegerField(min_value=0, max_value=1000, required=False, allow_null=True)
    mlp = serializers.ChoiceField(choices=MLP_KINDS, default="gated",
                                  help_text="gated: gate, up, down (3·h·F); plain: fc1, fc2 (2·h·F), e.g. OPT, GPT-2")
    bias = serializers.BooleanField(default=False, help_text="Biases on every attention/MLP linear layer and norm (OPT)")
    learned_position_embeddings = opt_int(MAX_CONTEXT)

    def validate(self, data):
        errors = {}
        if data["attention"] == "mla":
            for name in ("kv_lora_rank", "qk_rope_head_dim"):
                if not data.get(name):
                    errors[name] = ["MLA needs kv_lora_rank and qk_rope_head_dim"]
        elif data["num_kv_heads"] > data["num_attention_heads"]:
            errors["num_kv_heads"] = ["must be <= num_attention_heads"]
        elif data["num_attention_heads"] % data["num_kv_heads"]:
            errors["num_kv_heads"] = ["must divide num_attention_heads (each KV head serves a whole group)"]
        if data.get("num_experts"):
            if not data.get("experts_per_token"):
                errors["experts_per_token"] = ["MoE needs experts_per_token"]
            elif data["experts_per_token"] > data["num_experts"]:
                errors["experts_per_token"] = ["must be <= num_experts"]
            if not data.get("moe_intermediate_size"):
                errors["moe_intermediate_size"] = ["MoE needs moe_intermediate_size"]
            if (data.get("first_k_dense_replace") or 0) > data["num_layers"]:
                errors["first_k_dense_replace"] = ["must be <= num_layers"]
        elif data.get("experts_per_token"):
            errors["num_experts"] = ["experts_per_token needs num_experts"]
        if data.get("sliding_window_pattern") and not data.get("sliding_window"):
            errors["sliding_window"] = ["sliding_window_pattern needs sliding_window"]
        if errors:
            raise serializers.ValidationError(errors)
        return data


class InlineGPUSerializer(serializers.Serializer):
    """A GPU given inline: datasheet figures in decimal SI units."""

    name = serializers.CharField(max_length=120, required=False)
    vendor = serializers.ChoiceField(choices=["nvidia", "amd", "other"], default="nvidia")
    memory_bytes = pos_float(1e13, help_text="Total memory as the driver reports it to CUDA (what vLLM budgets from)")
    marketing_memory_bytes = pos_float(1e13, required=False, allow_null=True, help_text="The datasheet's rounded figure")
    hbm_bandwidth_bytes_per_s = pos_float(1e15)
    bf16_dense_flops = pos_float(1e18)
    fp8_dense_flops = pos_float(1e18, required=False, allow_null=True)
    fp4_dense_flops = pos_float(1e18, required=False, allow_null=True, help_text="Dense FP4 peak; omit if no FP4 unit")
    int8_dense_ops = pos_float(1e18, required=False, allow_null=True)
    interconnect_bandwidth_bytes_per_s = pos_float(1e14)
    price_per_hour_usd = serializers.FloatField(min_value=0, max_value=10_000, default=0.0)


class ModelChoice(serializers.Serializer):
    model = serializers.CharField(max_length=120, required=False, help_text="Catalog model slug, e.g. llama-3.1-8b")
    config = InlineModelSerializer(required=False, help_text="Inline model architecture instead of `model`")

    def validate(self, data):
        data = super().validate(data)
        if self.model_required and not data.get("model") and not data.get("config"):
            raise serializers.ValidationError({"model": ["give a catalog `model` slug or an inline `config`"]})
        if data.get("model") and data.get("config"):
            raise serializers.ValidationError({"config": ["give either `model` or `config`, not both"]})
        return data

    model_required = True

    @classmethod
    def request_rules(cls) -> list[dict]:
        """What validate() requires of the choice fields, for the schema."""
        return [(exactly_one if cls.model_required else at_most_one)("model", "config")]


class GPUChoice(ModelChoice):
    gpu = serializers.CharField(max_length=120, required=False, help_text="Catalog GPU slug, e.g. h100-sxm")
    gpu_spec = InlineGPUSerializer(required=False, help_text="Inline GPU spec instead of `gpu`")

    def validate(self, data):
        data = super().validate(data)
        if self.gpu_required and not data.get("gpu") and not data.get("gpu_spec"):
            raise serializers.ValidationError({"gpu": ["give a catalog `gpu` slug or an inline `gpu_spec`"]})
        if data.get("gpu") and data.get("gpu_spec"):
            raise serializers.ValidationError({"gpu_spec": ["give either `gpu` or `gpu_spec`, not both"]})
        return data

    gpu_required = True

    @classmethod
    def request_rules(cls) -> list[dict]:
        return [*super().request_rules(), (exactly_one if cls.gpu_required else at_most_one)("gpu", "gpu_spec")]


def dtype_field(default: str = "bf16", choices=None) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=choices or DTYPES, default=default)


# ---------------------------------------------------------------- endpoint inputs


class ParallelInput(serializers.Serializer):
    """Pipeline, data and expert parallelism beside tensor_parallel (checked against the model: 400 naming the field)."""

    pipeline_parallel = pos_int(64, default=1, help_text="Pipeline stages; each GPU holds num_layers / stages layers")
    data_parallel = pos_int(1024, default=1, help_text="Data-parallel ranks, each running its own batch of "
                            "batch_size sequences (attention data parallel for MoE: experts still span all ranks)")
    expert_parallel = pos_int(1024, default=1, help_text="1 (every GPU holds a slice of every expert) or "
                              "tensor_parallel × data_parallel (whole experts per GPU, all-to-all dispatch and "
                              "combine); must divide the routed experts")


class KVCacheInput(ModelChoice):
    kv_dtype = dtype_field()
    context_tokens = pos_int(MAX_CONTEXT)
    batch_size = pos_int(MAX_BATCH, default=1)
    tensor_parallel = pos_int(1024, default=1)


class FitInput(GPUChoice, ParallelInput):
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()
    context_tokens = pos_int(MAX_CONTEXT)
    batch_size = pos_int(MAX_BATCH, default=1)
    tensor_parallel = pos_int(1024, default=1)
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=GPU_MEMORY_UTILIZATION)
    max_num_batched_tokens = pos_int(MAX_CONTEXT, default=8192)


class StepTimeInput(GPUChoice, ParallelInput):
    phase = serializers.ChoiceField(choices=["prefill", "decode"], default="decode")
    cuda_graphs = serializers.BooleanField(default=True, help_text=(
        "False is vLLM's enforce_eager: every step also pays each layer's kernel launches (46.9 µs a layer, "
        "apps/simulators/modeling/step_overhead.py)"))
    batch_size = pos_int(MAX_BATCH, default=1)
    context_tokens = pos_int(MAX_CONTEXT // 2, help_text="Decode: tokens already cached. Prefill: the prompt length "
                             "unless prompt_tokens is given")
    prompt_tokens = pos_int(MAX_CONTEXT // 2, required=False, allow_null=True, help_text="Prefill: tokens per prompt")
    tensor_parallel = pos_int(1024, default=1)
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=GPU_MEMORY_UTILIZATION,
                                                    help_text="Share of GPU memory vLLM may use (the fit verdict)")
    expert_routing_skew = serializers.FloatField(min_value=0, max_value=10, default=0.0,
                                                 help_text="Zipf exponent of expert popularity (0: uniform routing); "
                                                           "sets the busiest expert-parallel rank's load")


class ThroughputLatencyInput(GPUChoice):
    prompt_tokens = pos_int(MAX_CONTEXT // 2)
    cuda_graphs = serializers.BooleanField(default=True, help_text=(
        "False is vLLM's enforce_eager: every step also pays each layer's kernel launches (46.9 µs a layer, "
        "apps/simulators/modeling/step_overhead.py)"))
    output_tokens = pos_int(MAX_CONTEXT // 2, default=256)
    tensor_parallel = pos_int(1024, default=1)
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=GPU_MEMORY_UTILIZATION)
    max_num_seqs = pos_int(100_000, default=1024)


class CapacityWorkloadInput(serializers.Serializer):
    requests_per_s = pos_float(1e7)
    prompt_tokens = pos_int(MAX_CONTEXT // 2)
    output_tokens = pos_int(MAX_CONTEXT // 2)


class CapacitySLOInput(serializers.Serializer):
    ttft_p99_s = pos_float(3600)
    tpot_s = pos_float(60)


class CapacityInput(GPUChoice, ParallelInput):
    workload = CapacityWorkloadInput()
    cuda_graphs = serializers.BooleanField(default=True, help_text=(
        "False is vLLM's enforce_eager: every step also pays each layer's kernel launches (46.9 µs a layer, "
        "apps/simulators/modeling/step_overhead.py)"))
    slo = CapacitySLOInput()
    price_per_gpu_hour_usd = serializers.FloatField(min_value=0, max_value=10_000, required=False, allow_null=True,
                                                    help_text="Defaults to the catalog GPU's price")
    tensor_parallel = serializers.ChoiceField(choices=CAPACITY_TP_CHOICES, required=False, allow_null=True,
                                              help_text="Omit to let the planner pick the cheapest")
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=GPU_MEMORY_UTILIZATION)
    max_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=MAX_UTILIZATION,
                                             help_text="Highest prefill-queue utilization a plan may run at "
                                                       "(a planning margin, not a vLLM setting)")


class SpeculativeInput(serializers.Serializer):
    acceptance_rate = serializers.FloatField(min_value=0, max_value=1)
    draft_tokens = serializers.IntegerField(min_value=0, max_value=64)
    draft_cost = serializers.FloatField(min_value=0, max_value=10, help_text="Cost of one draft step in target steps")
    max_draft_tokens = serializers.IntegerField(min_value=1, max_value=64, default=16)


def only(name: str, value: str) -> dict:
    """The field, if given, is this value (a pattern: the schema's enum hook would turn an enum into a component)."""
    return {"properties": {name: {"type": "string", "pattern": f"^{value}$"}}}


class CollectivesInput(serializers.Serializer):
    op = serializers.ChoiceField(choices=OPS)
    algorithm = serializers.ChoiceField(choices=ALGORITHMS, default="ring")
    message_bytes = pos_float(1e13)
    num_gpus = pos_int(100_000)
    link_bandwidth_bytes_per_s = pos_float(1e14, required=False, allow_null=True,
                                           help_text="One-direction link bandwidth; or give `gpu`/`gpu_spec`")
    gpu = serializers.CharField(max_length=120, required=False)
    gpu_spec = InlineGPUSerializer(required=False)
    latency_s = serializers.FloatField(min_value=0, max_value=1, default=1e-6)

    @classmethod
    def request_rules(cls) -> list[dict]:
        return [at_least_one(given("link_bandwidth_bytes_per_s", nullable=True), given("gpu"), given("gpu_spec")),
                at_least_one(only("op", "all_reduce"), {"not": given("algorithm")}, only("algorithm", "ring"))]

    def validate(self, data):
        if not data.get("link_bandwidth_bytes_per_s") and not data.get("gpu") and not data.get("gpu_spec"):
            raise serializers.ValidationError({"link_bandwidth_bytes_per_s": [
                "give link_bandwidth_bytes_per_s, a catalog `gpu` or an inline `gpu_spec`"]})
        if data["algorithm"] != "ring" and data["op"] != "all_reduce":
            raise serializers.ValidationError({"algorithm": ["tree and one_shot apply to all_reduce only"]})
        return data


class PagedKVInput(ModelChoice):
    model_required = False
    block_size = pos_int(4096, default=BLOCK_SIZE)
    sequence_lengths = serializers.ListField(child=pos_int(MAX_CONTEXT), min_length=1, max_length=10_000)
    max_model_len = pos_int(MAX_CONTEXT)
    kv_dtype = dtype_field()

    def validate(self, data):
        data = super().validate(data)
        if max(data["sequence_lengths"]) > data["max_model_len"]:
            raise serializers.ValidationError({"sequence_lengths": ["a sequence is longer than max_model_len"]})
        return data


class SyntheticPromptsSerializer(serializers.Serializer):
    num_requests = pos_int(2000)
    num_system_prompts = pos_int(1000, default=1)
    system_tokens = serializers.IntegerField(min_value=0, max_value=100_000)
    user_tokens = serializers.IntegerField(min_value=0, max_value=100_000)
    seed = serializers.IntegerField(min_value=0, max_value=2**32 - 1, default=0)

    def validate(self, data):
        limit = prefix_token_limit(self.context, synthetic=True)
        if data["num_requests"] * (data["system_tokens"] + data["user_tokens"]) > limit:
            raise serializers.ValidationError({"num_requests": [f"at most {limit:,} tokens in all{anonymous_hint(self.context)}"]})
        return data


MAX_PROMPT_TOKENS = 200_000
# Prefix-cache work per request (CPU measured on 2 busy cores): client token lists cost about 3 µs a token to parse,
# validate and hash; synthetic prompts about 30 ns a token. Anonymous requests stay near 50 ms, signed-in ones
# under 500 ms.
PREFIX_TOKEN_LIMITS = {"client": (12_000, 150_000), "synthetic": (1_000_000, 2_000_000)}  # (anonymous, signed in)


def _signed_in(context) -> bool:
    request = (context or {}).get("request")
    return bool(request is not None and request.user.is_authenticated)


def prefix_token_limit(context, *, synthetic: bool) -> int:
    anonymous, signed_in = PREFIX_TOKEN_LIMITS["synthetic" if synthetic else "client"]
    return signed_in if _signed_in(context) else anonymous


def anonymous_hint(context) -> str:
    return "" if _signed_in(context) else " for an anonymous request (sign in for more)"


class PrefixCacheInput(serializers.Serializer):
    prompts = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=2**31 - 1),
                                    max_length=MAX_PROMPT_TOKENS),
        required=False, max_length=1000, help_text="Token id lists, in arrival order")
    texts = serializers.ListField(child=serializers.CharField(max_length=100_000, allow_blank=True, trim_whitespace=False),
                                  required=False, max_length=1000,
                                  help_text="Prompt texts, tokenized server-side (approximate tokenizer)")
    synthetic = SyntheticPromptsSerializer(required=False, help_text="Requests sharing system prompts")
    block_size = pos_int(4096, default=BLOCK_SIZE)
    capacity_blocks = serializers.IntegerField(min_value=0, max_value=10_000_000)

    @classmethod
    def request_rules(cls) -> list[dict]:
        return [exactly_one("prompts", "texts", "synthetic")]

    def validate(self, data):
        given = [k for k in ("prompts", "texts", "synthetic") if data.get(k) is not None]
        if len(given) != 1:
            raise serializers.ValidationError({"prompts": ["give exactly one of prompts, texts or synthetic"]})
        limit = prefix_token_limit(self.context, synthetic=False)
        if data.get("prompts") is not None and sum(len(p) for p in data["prompts"]) > limit:
            raise serializers.ValidationError({"prompts": [f"at most {limit:,} tokens in all{anonymous_hint(self.context)}"]})
        return data


class MoEInput(serializers.Serializer):
    num_experts = pos_int(4096)
    top_k = pos_int(4096)
    tokens = pos_int(MAX_BATCH)
    zipf_exponent = serializers.FloatField(min_value=0, max_value=10, default=0.0)
    capacity_factor = serializers.FloatField(min_value=0.01, max_value=100, default=1.25)
    hidden_size = serializers.IntegerField(min_value=0, max_value=131_072, default=0)

    def validate(self, data):
        if data["top_k"] > data["num_experts"]:
            raise serializers.ValidationError({"top_k": ["must be <= num_experts"]})
        return data


class RequestWalkInput(GPUChoice):
    prompt = serializers.CharField(max_length=100_000, required=False, allow_null=True, trim_whitespace=False)
    tokens = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=2**31 - 1), required=False,
                                   allow_null=True,
                                   min_length=1, max_length=32_768, help_text="Token ids from a client-side tokenizer")
    tokenizer = serializers.CharField(max_length=60, required=False, allow_null=True, help_text="Name of the tokenizer that made `tokens`")
    output_tokens = serializers.IntegerField(min_value=1, max_value=256, default=32)
    batch_size = pos_int(4096, default=1)
    tensor_parallel = pos_int(1024, default=1)
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=GPU_MEMORY_UTILIZATION,
                                                    help_text="Share of GPU memory vLLM may use (the fit verdict)")

    @classmethod
    def request_rules(cls) -> list[dict]:
        non_blank = {"properties": {"prompt": {"type": "string", "minLength": 1}}}
        return [*super().request_rules(), at_least_one({**given("prompt"), **non_blank}, given("tokens", nullable=True))]

    def validate(self, data):
        data = super().validate(data)
        if not data.get("prompt") and not data.get("tokens"):
            raise serializers.ValidationError({"prompt": ["give the prompt text or its `tokens`"]})
        return data


class ServeWorkloadInput(serializers.Serializer):
    prompt_tokens = pos_int(MAX_CONTEXT // 2)
    output_tokens = pos_int(MAX_CONTEXT // 2)
    concurrency = pos_int(MAX_BATCH, default=1, help_text="Sequences that must fit at once when picking TP")


class ServeConfigInput(GPUChoice, ParallelInput):
    workload = ServeWorkloadInput()
    tensor_parallel = serializers.ChoiceField(choices=TP_CHOICES, required=False, allow_null=True)
    weight_dtype = dtype_field()
    kv_dtype = dtype_field(choices=KV_DTYPES)
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=GPU_MEMORY_UTILIZATION)
    max_num_seqs = pos_int(100_000, default=256)
    enable_prefix_caching = serializers.BooleanField(default=True)


# ---------------------------------------------------------------- engine, cluster and sweeps

BLOCK_SIZES = (8, 16, 32, 64, 128)
MAX_SYNC_REQUESTS = 2000


class EngineSLOInput(serializers.Serializer):
    ttft_s = serializers.FloatField(min_value=0.001, max_value=3600, default=1.0)
    tpot_s = serializers.FloatField(min_value=0.0001, max_value=60, default=0.1)


TRACE_ROW = {"arrival_s": {"type": "number", "minimum": 0, "maximum": 1e7},
             "prompt_tokens": {"type": "integer", "minimum": 1}, "output_tokens": {"type": "integer", "minimum": 1},
             "prefix_id": {"type": "integer", "minimum": 0, "nullable": True}}
TraceRow = documented_json({"oneOf": [  # checked by workload.from_trace
    {"type": "array", "items": {"type": "number", "nullable": True}, "minItems": 3, "maxItems": 4,
     "description": "[arrival_s, prompt_tokens, output_tokens, prefix_id?]"},
    {"type": "object", "properties": TRACE_ROW, "required": list(TRACE_ROW)[:3]},
]}, "TraceRow")


def _token_length_schema() -> dict:
    """What workload.length_dist takes for a token length: a number or one of its distributions."""
    tokens = {"type": "number", "minimum": 1, "maximum": MAX_TOKENS_PER_REQUEST}

    def dist(kind: str, **properties) -> dict:
        return {"type": "object", "properties": {"dist": {"type": "string", "enum": [kind]}, **properties},
                "required": ["dist", *properties], "additionalProperties": False}

    return {"oneOf": [
        {**tokens, "description": "Every request this many tokens"},
        dist("fixed", value=tokens),
        dist("uniform", low=tokens, high=tokens),
        dist("lognormal", mean=tokens, sigma={"type": "number", "minimum": 0, "maximum": 3}),
        dist("empirical", values={"type": "array", "items": tokens, "minItems": 1, "maxItems": 100_000}),
    ]}


TokenLength = documented_json(_token_length_schema(), "TokenLength")


class EngineWorkloadInput(serializers.Serializer):
    arrival_rate_per_s = serializers.FloatField(min_value=0.001, max_value=100_000, default=10.0)
    num_requests = serializers.IntegerField(min_value=1, max_value=MAX_SYNC_REQUESTS, default=200)
    prompt_tokens = TokenLength(default=512, help_text='A number or {"dist": "uniform", "low", "high"} / '
                                '{"dist": "lognormal", "mean", "sigma"} / {"dist": "empirical", "values"}')
    output_tokens = TokenLength(default=128, help_text="Same forms as prompt_tokens")
    arrival = serializers.ChoiceField(choices=ARRIVALS, default="poisson")
    burst_cv = serializers.FloatField(min_value=0.1, max_value=10, default=3.0)
    shared_prefix_tokens = serializers.IntegerField(min_value=0, max_value=32_768, default=0)
    prefix_groups = serializers.IntegerField(min_value=1, max_value=1000, default=1)
    session_turns = serializers.IntegerField(min_value=1, max_value=20, default=1)
    trace = serializers.ListField(child=TraceRow(), max_length=MAX_SYNC_REQUESTS, required=False,
                                  help_text="[arrival_s, prompt_tokens, output_tokens, prefix_id?] rows; replaces "
                                            "the synthetic arrivals and lengths")

    def validate(self, attrs: dict) -> dict:
        errors: dict[str, list[str]] = {}
        for name in ("prompt_tokens", "output_tokens"):
            try:
                length_dist(attrs[name], name)
            except WorkloadError as exc:
                errors[exc.field] = [exc.message]
        if attrs.get("trace"):
            try:
                from_trace(attrs["trace"])
            except WorkloadError as exc:
                errors[exc.field] = [exc.message]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class EngineInput(GPUChoice, ParallelInput):
    """One engine on a workload; the model and GPU are given as on every other simulator endpoint."""

    seed = serializers.IntegerField(min_value=0, max_value=2**32 - 1, default=0)
    cuda_graphs = serializers.BooleanField(default=True, help_text=(
        "False is vLLM's enforce_eager: every step also pays each layer's kernel launches (46.9 µs a layer, "
        "apps/simulators/modeling/step_overhead.py)"))
    tensor_parallel = serializers.ChoiceField(choices=TP_CHOICES, default=1)
    max_num_seqs = serializers.IntegerField(min_value=1, max_value=4096, default=256)
    max_num_batched_tokens = serializers.IntegerField(min_value=16, max_value=131_072, default=8192)
    chunked_prefill = serializers.BooleanField(default=True)
    prefix_caching = serializers.BooleanField(default=False)
    block_size = serializers.ChoiceField(choices=BLOCK_SIZES, default=BLOCK_SIZE)
    gpu_memory_utilization = serializers.FloatField(min_value=0.05, max_value=1.0, default=GPU_MEMORY_UTILIZATION)
    static_batching = serializers.BooleanField(default=False)
    long_prefill_token_threshold = serializers.IntegerField(
        min_value=0, max_value=131_072, default=0,
        help_text="vLLM's cap on one prefill chunk while more than one request is running or waiting; 0: no cap")
    scheduler_reserve_full_isl = serializers.BooleanField(
        default=True, help_text="vLLM's admission gate: admit a waiting request only when blocks for its whole "
                                "prompt fit (v0.33.0 default), not just its first chunk")
    weight_dtype = serializers.ChoiceField(choices=tuple(DTYPE_BYTES), default="bf16")
    kv_dtype = serializers.ChoiceField(choices=KV_DTYPES, default="bf16")
    slo = EngineSLOInput(default=lambda: {"ttft_s": 1.0, "tpot_s": 0.1})
    workload = EngineWorkloadInput()
    trace_steps = serializers.IntegerField(min_value=0, max_value=500, default=0,
                                           help_text="Return the first engine's first N steps as `step_log`")


class DisaggregationInput(serializers.Serializer):
    prefill_replicas = serializers.IntegerField(min_value=1, max_value=15)
    decode_replicas = serializers.IntegerField(min_value=1, max_value=15)
    link_bandwidth_gb_per_s = serializers.FloatField(min_value=0.1, max_value=10_000, required=False,
                                                     help_text="KV transfer GB/s per GPU; default: one direction "
                                                               "of the GPU interconnect")
    link_latency_us = serializers.FloatField(min_value=0, max_value=1_000_000, default=10.0)
    prefill_tensor_parallel = serializers.ChoiceField(
        choices=TP_CHOICES, required=False,
        help_text="The prefill pool's tensor parallelism (default: tensor_parallel): wider for compute-bound prompts")
    decode_tensor_parallel = serializers.ChoiceField(
        choices=TP_CHOICES, required=False,
        help_text="The decode pool's tensor parallelism (default: tensor_parallel): the KV cache and weights it holds")


class ClusterInput(EngineInput):
    replicas = serializers.IntegerField(min_value=1, max_value=16, default=2)
    router = serializers.ChoiceField(choices=ROUTERS, default="round_robin")
    disaggregation = DisaggregationInput(required=False, allow_null=True)

    def validate(self, attrs: dict) -> dict:
        attrs = super().validate(attrs)
        d = attrs.get("disaggregation")
        if d and d["prefill_replicas"] + d["decode_replicas"] > 16:
            raise serializers.ValidationError({"disaggregation": ["At most 16 replicas in all."]})
        return attrs


class JobWorkloadInput(EngineWorkloadInput):
    """A background job's workload: up to Vidur's scale and beyond."""

    num_requests = serializers.IntegerField(min_value=1, max_value=JOB_MAX_REQUESTS, default=200)
    trace = serializers.ListField(child=TraceRow(), max_length=JOB_MAX_REQUESTS, required=False,
                                  help_text="[arrival_s, prompt_tokens, output_tokens, prefix_id?] rows; replaces "
                                            "the synthetic arrivals and lengths")


class EngineJobInput(ClusterInput):
    """What /engine/ or /cluster/ take, run by a worker: up to 20,000 requests and 5,000,000 engine steps."""

    replicas = serializers.IntegerField(min_value=1, max_value=16, default=1)
    workload = JobWorkloadInput()


SWEEP_MODES = ("two_stage", "exhaustive")
GRID_VALIDATORS = {
    "gpu": serializers.CharField(max_length=100),
    "tensor_parallel": serializers.ChoiceField(choices=TP_CHOICES),
    "pipeline_parallel": serializers.IntegerField(min_value=1, max_value=64, help_text="Pipeline stages"),
    "data_parallel": serializers.IntegerField(min_value=1, max_value=1024, help_text="Data-parallel ranks"),
    "expert_parallel": serializers.IntegerField(min_value=1, max_value=1024, help_text=(
        "1 or tensor_parallel × data_parallel of the same point, dividing the routed experts; any other "
        "combination is an infeasible point with the reason")),
    "replicas": serializers.IntegerField(min_value=1, max_value=16),
    "max_num_seqs": serializers.IntegerField(min_value=1, max_value=4096),
    "max_num_batched_tokens": serializers.IntegerField(min_value=16, max_value=131_072),
    "chunked_prefill": serializers.BooleanField(),
    "long_prefill_token_threshold": serializers.IntegerField(min_value=0, max_value=131_072),
    "router": serializers.ChoiceField(choices=ROUTERS),
    "weight_dtype": serializers.ChoiceField(choices=tuple(DTYPE_BYTES)),
    "prefill_replicas": serializers.IntegerField(min_value=1, max_value=15, help_text=(
        "Prefill replicas of a disaggregated layout (with decode_replicas): the grid adds P/D points beside its "
        "colocated ones; both pools run the point's tensor_parallel")),
    "decode_replicas": serializers.IntegerField(min_value=1, max_value=15, help_text=(
        "Decode replicas of a disaggregated layout (with prefill_replicas); prefill + decode over 16 is an "
        "infeasible point with the reason")),
    "prefill_tensor_parallel": serializers.ChoiceField(choices=TP_CHOICES, help_text=(
        "The prefill pool's tensor parallelism of a disaggregated layout (default: the point's tensor_parallel); "
        "P/D points only")),
    "decode_tensor_parallel": serializers.ChoiceField(choices=TP_CHOICES, help_text=(
        "The decode pool's tensor parallelism of a disaggregated layout (default: the point's tensor_parallel); "
        "P/D points only")),
    "kv_transfer": serializers.ChoiceField(choices=tuple(KV_LINKS), help_text=(
        "The KV cache's link from prefill to decode, per GPU: nvlink (inside a node: the GPU's NVLink, one "
        "direction, 450 GB/s on H100/H200) or rdma (across nodes: a 400 Gb/s NIC, 50 GB/s); P/D points only")),
}


MAX_KNOB_VALUES = 100
WHOLE_NUMBER_KNOBS = ("tensor_parallel", "pipeline_parallel", "data_parallel", "expert_parallel", "replicas",
                      "max_num_seqs", "max_num_batched_tokens", "long_prefill_token_threshold", "prefill_replicas",
                      "decode_replicas", "prefill_tensor_parallel", "decode_tensor_parallel")


def knob_field(key: str, **overrides) -> serializers.Field:
    """A fresh copy of a grid knob's validator, with ``overrides`` (a default, narrower bounds) on its arguments."""
    field = GRID_VALIDATORS[key]
    return type(field)(*field._args, **{**field._kwargs, **overrides})


def knob_fields(wrap) -> dict[str, serializers.Field]:
    """A fresh optional field per grid knob: `wrap` turns a copy of the knob's validator into the field."""
    return {key: wrap(knob_field(key)) for key in GRID_VALIDATORS}


SweepGrid = type("SweepGrid", (serializers.Serializer,), {
    "__doc__": f"Knob → list of 1 to {MAX_KNOB_VALUES} distinct values (SweepInput.validate_grid); at most "
               f"{MAX_POINTS:,} points in all",
    **knob_fields(lambda child: serializers.ListField(child=child, min_length=1, max_length=MAX_KNOB_VALUES,
                                                      required=False, help_text=child.help_text))})


@extend_schema_field(SweepGrid)
class GridField(serializers.DictField):
    """Validated knob by knob in SweepInput.validate_grid (messages name the knob); documented as SweepGrid."""


class SweepInput(EngineInput):
    replicas = serializers.IntegerField(min_value=1, max_value=16, default=1)
    router = serializers.ChoiceField(choices=ROUTERS, default="round_robin")
    mode = serializers.ChoiceField(choices=SWEEP_MODES, default="two_stage", help_text=(
        "two_stage: the closed-form screen prices every point, the engine simulates only the candidates near the "
        "screen's frontier (within 25 %, SLO boundary included; 2 to 10 % of the grid, at least 16, at most 160 "
        "points) and the frontier and recommendation come from them; "
        "exhaustive: the engine simulates every point (grids of 16 points or fewer always are)"))
    grid = GridField(help_text=f"Knob → list of values; knobs: {', '.join(GRID_KEYS)}; at most {MAX_POINTS:,} points. "
                               "A point whose layout vLLM refuses (expert_parallel not 1 or tensor_parallel × "
                               "data_parallel, or not dividing the experts) is infeasible with the reason. With "
                               "prefill_replicas and decode_replicas the grid is its colocated points followed by "
                               "its disaggregated ones (every prefill × decode pair; `replicas` is for the "
                               "colocated ones only)")
    max_gpus = serializers.IntegerField(min_value=1, max_value=100_000, required=False, help_text=(
        "GPU budget: a point whose deployment (replicas or P/D pools × TP × PP × DP) needs more is not run, and "
        "stays off the frontier and the recommendation"))
    max_usd_per_hour = serializers.FloatField(min_value=0.0, max_value=1e7, required=False, help_text=(
        "$/hour budget (GPUs × the GPU's price): a point over it is not run, like one over max_gpus"))

    gpu_required = False  # the grid may name the GPUs

    def validate_max_usd_per_hour(self, value: float) -> float:
        if value <= 0:
            raise serializers.ValidationError("Must be more than 0.")
        return value

    @classmethod
    def request_rules(cls) -> list[dict]:
        gpu_knob = {"required": ["grid"], "properties": {"grid": {"required": ["gpu"]}}}
        return [*super().request_rules(), at_least_one(given("gpu"), given("gpu_spec"), gpu_knob),
                {"properties": {"grid": {"minProperties": 1}}}]

    def validate(self, attrs: dict) -> dict:
        attrs = super().validate(attrs)
        if not attrs.get("gpu") and not attrs.get("gpu_spec") and "gpu" not in attrs["grid"]:
            raise serializers.ValidationError({"gpu": ["give a catalog `gpu` slug, an inline `gpu_spec` or a `gpu` "
                                                       "knob in the grid"]})
        try:
            w = workload_build(workload=attrs["workload"], seed=attrs.get("seed", 0))
        except WorkloadError as exc:
            raise serializers.ValidationError({f"workload.{exc.field}": [exc.message]})
        total = int((w.prompt_tokens + w.output_tokens).sum())
        if total > MAX_TOKENS:  # every point simulates this workload: refuse it once, here
            raise serializers.ValidationError({"workload": [
                f"{total:,} tokens (prompt + output, summed over the requests); at most {MAX_TOKENS:,}."]})
        return attrs

    def validate_grid(self, grid: dict) -> dict:
        if not grid:
            raise serializers.ValidationError("Give at least one knob with a list of values.")
        unknown = [key for key in grid if key not in GRID_KEYS]
        if unknown:
            raise serializers.ValidationError({key: [f"Unknown knob; use {', '.join(GRID_KEYS)}."] for key in unknown})
        pd = [key for key in PD_KEYS if key in grid]
        if len(pd) == 1:
            other = next(key for key in PD_KEYS if key not in grid)
            raise serializers.ValidationError({other: [
                f"A disaggregated layout needs both prefill_replicas and decode_replicas; {pd[0]} was given alone."]})
        for key in ("kv_transfer", *POOL_TP_KEYS):
            if key in grid and not pd:
                raise serializers.ValidationError({key: [
                    "Applies to disaggregated layouts only: give prefill_replicas and decode_replicas too."]})
        clean: dict[str, list] = {}
        for key, values in grid.items():
            if not isinstance(values, list) or not 1 <= len(values) <= MAX_KNOB_VALUES:
                raise serializers.ValidationError({key: [f"Must be a list of 1 to {MAX_KNOB_VALUES} values."]})
            field = GRID_VALIDATORS[key]
            out = []
            for value in values:
                if key in WHOLE_NUMBER_KNOBS and (
                        isinstance(value, bool) or not isinstance(value, int)):
                    raise serializers.ValidationError({key: [f"{value!r} is not a whole number."]})
                if key == "chunked_prefill" and not isinstance(value, bool):
                    raise serializers.ValidationError({key: [f"{value!r} is not true or false."]})
                try:
                    out.append(field.run_validation(value))
                except serializers.ValidationError as exc:
                    raise serializers.ValidationError({key: exc.detail})
                if key == "gpu":
                    try:
                        catalog.gpu_spec(user=self.context["request"].user, slug=out[-1])
                    except InvalidInput as exc:
                        raise serializers.ValidationError({key: [exc.message]})
            if len(set(map(str, out))) != len(out):
                raise serializers.ValidationError({key: ["Values must be distinct."]})
            clean[key] = out
        if grid_size(clean) > MAX_POINTS:
            raise serializers.ValidationError(f"{grid_size(clean):,} points; at most {MAX_POINTS:,} per sweep.")
        return clean


MAX_RESULTS_PAGE = 1000


class SweepResultsQuery(serializers.Serializer):
    """Which page of a sweep's simulated points to read (by index)."""
    page = serializers.IntegerField(required=False, default=1, min_value=1, max_value=10_000)
    page_size = serializers.IntegerField(required=False, default=500, min_value=1, max_value=MAX_RESULTS_PAGE)

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown query parameter; use page and page_size."]
                                               for name in unknown})
        return attrs
