"""Input serializers (shape and range checks) and output serializers (the documented response shapes)."""

from dataclasses import fields as dataclass_fields

from rest_framework import serializers

from apps.core.models import Status as ContentStatus
from apps.simulators.modeling.collectives import ALGORITHMS, OPS
from apps.simulators.modeling.specs import ATTENTION_KINDS, DTYPE_BYTES, GPUSpec, ModelSpec
from apps.simulators.models import GPU, ModelConfig

DTYPES = list(DTYPE_BYTES)
MAX_CONTEXT = 10_000_000
MAX_BATCH = 1_000_000


def pos_int(maximum: int, **kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=maximum, **kwargs)


def pos_float(maximum: float, **kwargs) -> serializers.FloatField:
    return serializers.FloatField(min_value=1e-12, max_value=maximum, **kwargs)


def opt_int(maximum: int) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=maximum, required=False, allow_null=True)


# ---------------------------------------------------------------- catalog


class ModelConfigSerializer(serializers.ModelSerializer):
    class Meta:
        model = ModelConfig
        exclude = ["id", "status"]


class GPUSerializer(serializers.ModelSerializer):
    class Meta:
        model = GPU
        exclude = ["id", "status"]


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
            "memory_bytes", "hbm_bandwidth_bytes_per_s", "bf16_dense_flops", "fp8_dense_flops", "int8_dense_ops",
            "interconnect_bandwidth_bytes_per_s", "price_per_hour_usd")}


class ModelConfigAuthoringSerializer(ModelConfigWriteSerializer):
    updated_at = serializers.DateTimeField(read_only=True)
    warnings = serializers.ListField(child=serializers.CharField(), read_only=True,
                                     help_text="Allowed but suspicious, e.g. head_dim × heads ≠ hidden_size")

    class Meta(ModelConfigWriteSerializer.Meta):
        fields = [*ModelConfigWriteSerializer.Meta.fields, "updated_at", "warnings"]


class GPUAuthoringSerializer(GPUWriteSerializer):
    updated_at = serializers.DateTimeField(read_only=True)
    warnings = serializers.ListField(child=serializers.CharField(), read_only=True, help_text="Allowed but suspicious")

    class Meta(GPUWriteSerializer.Meta):
        fields = [*GPUWriteSerializer.Meta.fields, "updated_at", "warnings"]


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
    memory_bytes = pos_float(1e13)
    hbm_bandwidth_bytes_per_s = pos_float(1e15)
    bf16_dense_flops = pos_float(1e18)
    fp8_dense_flops = pos_float(1e18, required=False, allow_null=True)
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


def dtype_field(default: str = "bf16", choices=None) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=choices or DTYPES, default=default)


# ---------------------------------------------------------------- endpoint inputs


class KVCacheInput(ModelChoice):
    kv_dtype = dtype_field()
    context_tokens = pos_int(MAX_CONTEXT)
    batch_size = pos_int(MAX_BATCH, default=1)
    tensor_parallel = pos_int(1024, default=1)


class FitInput(GPUChoice):
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()
    context_tokens = pos_int(MAX_CONTEXT)
    batch_size = pos_int(MAX_BATCH, default=1)
    tensor_parallel = pos_int(1024, default=1)
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=0.9)
    max_num_batched_tokens = pos_int(MAX_CONTEXT, default=8192)


class StepTimeInput(GPUChoice):
    phase = serializers.ChoiceField(choices=["prefill", "decode"], default="decode")
    batch_size = pos_int(MAX_BATCH, default=1)
    context_tokens = pos_int(MAX_CONTEXT // 2, help_text="Decode: tokens already cached. Prefill: the prompt length "
                             "unless prompt_tokens is given")
    prompt_tokens = pos_int(MAX_CONTEXT // 2, required=False, allow_null=True, help_text="Prefill: tokens per prompt")
    tensor_parallel = pos_int(1024, default=1)
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()


class ThroughputLatencyInput(GPUChoice):
    prompt_tokens = pos_int(MAX_CONTEXT // 2)
    output_tokens = pos_int(MAX_CONTEXT // 2, default=256)
    tensor_parallel = pos_int(1024, default=1)
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=0.9)
    max_num_seqs = pos_int(100_000, default=1024)


class WorkloadSerializer(serializers.Serializer):
    requests_per_s = pos_float(1e7)
    prompt_tokens = pos_int(MAX_CONTEXT // 2)
    output_tokens = pos_int(MAX_CONTEXT // 2)


class SLOSerializer(serializers.Serializer):
    ttft_p99_s = pos_float(3600)
    tpot_s = pos_float(60)


class CapacityInput(GPUChoice):
    workload = WorkloadSerializer()
    slo = SLOSerializer()
    price_per_gpu_hour_usd = serializers.FloatField(min_value=0, max_value=10_000, required=False, allow_null=True,
                                                    help_text="Defaults to the catalog GPU's price")
    tensor_parallel = serializers.ChoiceField(choices=[1, 2, 4, 8], required=False, allow_null=True,
                                              help_text="Omit to let the planner pick the cheapest")
    weight_dtype = dtype_field()
    kv_dtype = dtype_field()
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=0.9)
    max_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=0.9)


class SpeculativeInput(serializers.Serializer):
    acceptance_rate = serializers.FloatField(min_value=0, max_value=1)
    draft_tokens = serializers.IntegerField(min_value=0, max_value=64)
    draft_cost = serializers.FloatField(min_value=0, max_value=10, help_text="Cost of one draft step in target steps")
    max_draft_tokens = serializers.IntegerField(min_value=1, max_value=64, default=16)


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

    def validate(self, data):
        if not data.get("link_bandwidth_bytes_per_s") and not data.get("gpu") and not data.get("gpu_spec"):
            raise serializers.ValidationError({"link_bandwidth_bytes_per_s": [
                "give link_bandwidth_bytes_per_s, a catalog `gpu` or an inline `gpu_spec`"]})
        if data["algorithm"] != "ring" and data["op"] != "all_reduce":
            raise serializers.ValidationError({"algorithm": ["tree and one_shot apply to all_reduce only"]})
        return data


class PagedKVInput(ModelChoice):
    model_required = False
    block_size = pos_int(4096, default=16)
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
        if data["num_requests"] * (data["system_tokens"] + data["user_tokens"]) > 2_000_000:
            raise serializers.ValidationError({"num_requests": ["at most 2,000,000 tokens in all"]})
        return data


MAX_PROMPT_TOKENS = 200_000


class PrefixCacheInput(serializers.Serializer):
    prompts = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=2**31 - 1),
                                    max_length=MAX_PROMPT_TOKENS),
        required=False, max_length=1000, help_text="Token id lists, in arrival order")
    texts = serializers.ListField(child=serializers.CharField(max_length=100_000, allow_blank=True, trim_whitespace=False),
                                  required=False, max_length=1000,
                                  help_text="Prompt texts, tokenized server-side (approximate tokenizer)")
    synthetic = SyntheticPromptsSerializer(required=False, help_text="Requests sharing system prompts")
    block_size = pos_int(4096, default=16)
    capacity_blocks = serializers.IntegerField(min_value=0, max_value=10_000_000)

    def validate(self, data):
        given = [k for k in ("prompts", "texts", "synthetic") if data.get(k) is not None]
        if len(given) != 1:
            raise serializers.ValidationError({"prompts": ["give exactly one of prompts, texts or synthetic"]})
        if data.get("prompts") is not None and sum(len(p) for p in data["prompts"]) > 2_000_000:
            raise serializers.ValidationError({"prompts": ["at most 2,000,000 tokens in all"]})
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

    def validate(self, data):
        data = super().validate(data)
        if not data.get("prompt") and not data.get("tokens"):
            raise serializers.ValidationError({"prompt": ["give the prompt text or its `tokens`"]})
        return data


class ServeWorkloadSerializer(serializers.Serializer):
    prompt_tokens = pos_int(MAX_CONTEXT // 2)
    output_tokens = pos_int(MAX_CONTEXT // 2)
    concurrency = pos_int(MAX_BATCH, default=1, help_text="Sequences that must fit at once when picking TP")


class ServeConfigInput(GPUChoice):
    workload = ServeWorkloadSerializer()
    tensor_parallel = serializers.ChoiceField(choices=[1, 2, 4, 8, 16], required=False, allow_null=True)
    weight_dtype = dtype_field()
    kv_dtype = dtype_field(choices=["bf16", "fp16", "fp8"])
    gpu_memory_utilization = serializers.FloatField(min_value=0.01, max_value=1.0, default=0.9)
    max_num_seqs = pos_int(100_000, default=256)
    enable_prefix_caching = serializers.BooleanField(default=True)


# ---------------------------------------------------------------- outputs (documentation of the response shapes)

F, I, S, B = serializers.FloatField, serializers.IntegerField, serializers.CharField, serializers.BooleanField  # noqa: E741


def _fields(**kinds) -> dict:
    return {name: kind() if isinstance(kind, type) else kind for name, kind in kinds.items()}


def output(_class_name: str, /, **kinds) -> type[serializers.Serializer]:
    return type(_class_name, (serializers.Serializer,), _fields(**kinds))


def floats(**kw) -> serializers.ListField:
    return serializers.ListField(child=serializers.FloatField(), **kw)


def many(serializer: type) -> serializers.Serializer:
    return serializer(many=True)


Summary = output("ModelSummary", slug=S, name=S, attention=S, max_position_embeddings=I, hidden_size=I)
GPUSummary = output("GPUSummary", slug=S, name=S, memory_bytes=F, hbm_bandwidth_bytes_per_s=F,
                    interconnect_bandwidth_bytes_per_s=F, price_per_hour_usd=F)
Warnings = serializers.ListField(child=serializers.CharField(), help_text="Things that are allowed but suspicious")

KVCacheOutput = output(
    "KVCacheOutput", model=Summary(), bytes_per_token=F, bytes_per_token_per_gpu=F, bytes_per_sequence=F,
    bytes_per_sequence_per_gpu=F, total_bytes=F, per_gpu_bytes=F, all_gpus_bytes=F, heads_per_gpu=I,
    sharded_by_tp=B, sliding_window_layers=I, derivation=S, warnings=Warnings)
FitOutput = output(
    "FitOutput", model=Summary(), gpu=GPUSummary(), fits=B, memory_bytes=F, budget_bytes=F,
    per_gpu_bytes=output("FitComponents", weights=F, kv_cache=F, activations=F, runtime_overhead=F, free=F)(),
    total_bytes_per_gpu=F, headroom_bytes=F, kv_budget_bytes_per_gpu=F, max_concurrent_sequences=F,
    tensor_parallel=I, min_tensor_parallel=I(allow_null=True),
    min_tensor_parallel_tried=many(output("TPTry", tp=I, valid=B, fits=B, headroom_bytes=F)),
    weight_bytes_total=F, derivation=S, min_tensor_parallel_derivation=S, warnings=Warnings)
RooflinePoint = output("RooflinePoint", phase=S, arithmetic_intensity_flops_per_byte=F, achieved_flops_per_s=F, bound=S)
StepTimeOutput = output(
    "StepTimeOutput", model=Summary(), gpu=GPUSummary(), phase=S, tokens=I, flops=F, bytes=F, weight_bytes=F,
    kv_bytes=F, arithmetic_intensity_flops_per_byte=F, ridge_point_flops_per_byte=F, peak_flops_per_s=F,
    compute_seconds=F, memory_seconds=F, communication_seconds=F, overhead_seconds=F, step_seconds=F,
    step_seconds_range=floats(), tokens_per_s=F, tokens_per_s_range=floats(), output_tokens_per_s=F, bound=S,
    crossover_batch=F, crossover_reachable=B,
    roofline=output("Roofline", peak_flops_per_s=F, bandwidth_bytes_per_s=F, ridge_point_flops_per_byte=F,
                    points=many(RooflinePoint))(),
    note=S, derivation=S, priors=serializers.DictField(), warnings=Warnings)
CurvePoint = output("CurvePoint", batch_size=I, tpot_seconds=F, tpot_seconds_range=floats(), tokens_per_s=F,
                    tokens_per_s_range=floats(), tokens_per_s_per_gpu=F, bound=S)
ThroughputLatencyOutput = output(
    "ThroughputLatencyOutput", model=Summary(), gpu=GPUSummary(), points=many(CurvePoint), max_batch=I,
    tensor_parallel=I, bound=S, crossover_batch=F, note=S, derivation=S, warnings=Warnings)
CapacityOutput = output(
    "CapacityOutput", model=Summary(), gpu=GPUSummary(), feasible=B, gpus=I, gpus_range=floats(), replicas=I,
    replicas_range=floats(), tp=I(allow_null=True), batch_per_replica=I, requests_per_s_per_replica=F,
    ttft_seconds=F, tpot_seconds=F, utilization=F, price_per_gpu_hour_usd=F, usd_per_hour=F,
    usd_per_hour_range=floats(), usd_per_million_tokens=F, usd_per_million_tokens_range=floats(),
    usd_per_million_output_tokens=F, limiting_factor=S, bound=S, note=S, derivation=S, warnings=Warnings)
SpeculativeOutput = output(
    "SpeculativeOutput", expected_tokens_per_step=F, speedup=F, optimal_draft_tokens=I, optimal_speedup=F, bound=S,
    note=S, curve=many(output("SpeculativePoint", draft_tokens=I, expected_tokens_per_step=F, speedup=F)),
    derivation=S)
CollectivesOutput = output(
    "CollectivesOutput", op=S, algorithm=S, num_gpus=I, message_bytes=F, link_bandwidth_bytes_per_s=F,
    gpu=GPUSummary(allow_null=True), seconds=F, bandwidth_term_seconds=F, latency_term_seconds=F,
    algorithm_bandwidth_bytes_per_s=F, bus_bandwidth_bytes_per_s=F, bound=S,
    curves=many(output("CollectiveCurve", algorithm=S, message_bytes=floats(), seconds=floats())), derivation=S)
PagedKVOutput = output(
    "PagedKVOutput", block_size=I, max_model_len=I, kv_bytes_per_token=F, model=Summary(allow_null=True),
    sequences=many(output("PagedSequence", tokens=I, blocks=I, last_block_tokens=I)), total_blocks=F,
    used_tokens=F, contiguous_reserved_tokens=F, contiguous_waste_fraction=F, paged_reserved_tokens=F,
    paged_waste_fraction=F, contiguous_bytes=F, paged_bytes=F, contiguous_waste_bytes=F, paged_waste_bytes=F,
    derivation=S)
PrefixCacheOutput = output(
    "PrefixCacheOutput", tokenizer=S, block_size=I, capacity_blocks=I, num_prompts=I,
    prompts=many(output("PrefixPrompt", tokens=I, blocks=I, hit_blocks=I,
                        hashes=serializers.ListField(child=serializers.CharField()), hashes_truncated=B,
                        pieces=serializers.ListField(child=serializers.CharField()))),
    hit_blocks=I, lookup_blocks=I, hit_rate=F, token_hit_rate=F, evictions=I, derivation=S)
MoEOutput = output(
    "MoEOutput", num_experts=I, top_k=I, tokens=I, expected_load_tokens=floats(), selection_probability=floats(),
    mean_load_tokens=F, imbalance=F, capacity_tokens=F, dropped_fraction=F, dropped_tokens=F, distinct_experts=F,
    expected_distinct_experts_uniform=F, all_to_all_bytes_per_layer=F, derivation=S)
TimelineStep = output("TimelineStep", kind=S, index=I(required=False), tokens=I, start_seconds=F, end_seconds=F,
                      kv_bytes=F, bound=S)
RequestWalkOutput = output(
    "RequestWalkOutput", model=Summary(), gpu=GPUSummary(), tokenizer=S, prompt_tokens=I,
    token_ids=serializers.ListField(child=serializers.IntegerField()),
    token_pieces=serializers.ListField(child=serializers.CharField()), output_tokens=I, ttft_seconds=F,
    ttft_seconds_range=floats(), itl_seconds=F, itl_seconds_range=floats(), total_seconds=F, kv_bytes_per_token=F,
    prefill_bound=S, decode_bound=S, bound=S, crossover_batch=F, decode_weight_bytes_per_step=F,
    timeline=many(TimelineStep), derivation=S, warnings=Warnings)
ServeConfigOutput = output(
    "ServeConfigOutput", model=Summary(), gpu=GPUSummary(), tensor_parallel=I, max_model_len=I, command=S,
    flags=many(output("ServeFlag", flag=S, value=serializers.JSONField(allow_null=True), why=S)), kubernetes_yaml=S, derivation=S,
    warnings=Warnings)
