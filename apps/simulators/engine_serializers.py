"""Input and output serializers of the engine, cluster and sweep endpoints."""

from __future__ import annotations

from rest_framework import serializers

from apps.simulators.engine.cluster import ROUTERS
from apps.simulators.engine.workload import ARRIVALS, WorkloadError, from_trace, length_dist
from apps.simulators.modeling.specs import DTYPE_BYTES
from apps.simulators.models import SweepJob, SweepPoint
from apps.simulators.sweeps import GRID_KEYS, MAX_POINTS, grid_size

TP_CHOICES = (1, 2, 4, 8, 16)
BLOCK_SIZES = (8, 16, 32, 64, 128)
KV_DTYPES = ("bf16", "fp16", "fp8")
MAX_SYNC_REQUESTS = 2000


class SLOSerializer(serializers.Serializer):
    ttft_s = serializers.FloatField(min_value=0.001, max_value=3600, default=1.0)
    tpot_s = serializers.FloatField(min_value=0.0001, max_value=60, default=0.1)


class WorkloadSerializer(serializers.Serializer):
    arrival_rate_per_s = serializers.FloatField(min_value=0.001, max_value=100_000, default=10.0)
    num_requests = serializers.IntegerField(min_value=1, max_value=MAX_SYNC_REQUESTS, default=200)
    prompt_tokens = serializers.JSONField(default=512, help_text='A number or {"dist": "uniform", "low", "high"} / '
                                          '{"dist": "lognormal", "mean", "sigma"} / {"dist": "empirical", "values"}')
    output_tokens = serializers.JSONField(default=128, help_text="Same forms as prompt_tokens")
    arrival = serializers.ChoiceField(choices=ARRIVALS, default="poisson")
    burst_cv = serializers.FloatField(min_value=0.1, max_value=10, default=3.0)
    shared_prefix_tokens = serializers.IntegerField(min_value=0, max_value=32_768, default=0)
    prefix_groups = serializers.IntegerField(min_value=1, max_value=1000, default=1)
    session_turns = serializers.IntegerField(min_value=1, max_value=20, default=1)
    trace = serializers.ListField(child=serializers.JSONField(), max_length=MAX_SYNC_REQUESTS, required=False,
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


class ServingSerializer(serializers.Serializer):
    model = serializers.CharField(max_length=100, required=False, help_text="Catalog slug (or give `config`)")
    config = serializers.DictField(required=False, help_text="Inline model config (ModelSpec fields)")
    gpu = serializers.CharField(max_length=100, required=False, help_text="Catalog slug (or give `gpu_spec`)")
    gpu_spec = serializers.DictField(required=False, help_text="Inline GPU spec (GPUSpec fields)")
    seed = serializers.IntegerField(min_value=0, max_value=2**32 - 1, default=0)
    tensor_parallel = serializers.ChoiceField(choices=TP_CHOICES, default=1)
    max_num_seqs = serializers.IntegerField(min_value=1, max_value=4096, default=256)
    max_num_batched_tokens = serializers.IntegerField(min_value=16, max_value=131_072, default=8192)
    chunked_prefill = serializers.BooleanField(default=True)
    prefix_caching = serializers.BooleanField(default=False)
    block_size = serializers.ChoiceField(choices=BLOCK_SIZES, default=16)
    gpu_memory_utilization = serializers.FloatField(min_value=0.05, max_value=1.0, default=0.9)
    static_batching = serializers.BooleanField(default=False)
    weight_dtype = serializers.ChoiceField(choices=tuple(DTYPE_BYTES), default="bf16")
    kv_dtype = serializers.ChoiceField(choices=KV_DTYPES, default="bf16")
    slo = SLOSerializer(default=lambda: {"ttft_s": 1.0, "tpot_s": 0.1})
    workload = WorkloadSerializer()

    def validate(self, attrs: dict) -> dict:
        if not attrs.get("model") and not attrs.get("config"):
            raise serializers.ValidationError({"model": ["Give a catalog slug or an inline `config`."]})
        if not attrs.get("gpu") and not attrs.get("gpu_spec") and "gpu" not in attrs.get("grid", {}):
            raise serializers.ValidationError({"gpu": ["Give a catalog slug or an inline `gpu_spec`."]})
        return attrs


class DisaggregationSerializer(serializers.Serializer):
    prefill_replicas = serializers.IntegerField(min_value=1, max_value=15)
    decode_replicas = serializers.IntegerField(min_value=1, max_value=15)
    link_bandwidth_gb_per_s = serializers.FloatField(min_value=0.1, max_value=10_000, required=False,
                                                     help_text="KV transfer GB/s per GPU; default: one direction "
                                                               "of the GPU interconnect")
    link_latency_us = serializers.FloatField(min_value=0, max_value=1_000_000, default=10.0)


class ClusterSerializer(ServingSerializer):
    replicas = serializers.IntegerField(min_value=1, max_value=16, default=2)
    router = serializers.ChoiceField(choices=ROUTERS, default="round_robin")
    disaggregation = DisaggregationSerializer(required=False, allow_null=True)

    def validate(self, attrs: dict) -> dict:
        attrs = super().validate(attrs)
        d = attrs.get("disaggregation")
        if d and d["prefill_replicas"] + d["decode_replicas"] > 16:
            raise serializers.ValidationError({"disaggregation": ["At most 16 replicas in all."]})
        return attrs


GRID_VALIDATORS = {
    "gpu": serializers.CharField(max_length=100),
    "tensor_parallel": serializers.ChoiceField(choices=TP_CHOICES),
    "replicas": serializers.IntegerField(min_value=1, max_value=16),
    "max_num_seqs": serializers.IntegerField(min_value=1, max_value=4096),
    "max_num_batched_tokens": serializers.IntegerField(min_value=16, max_value=131_072),
    "chunked_prefill": serializers.BooleanField(),
    "router": serializers.ChoiceField(choices=ROUTERS),
    "weight_dtype": serializers.ChoiceField(choices=tuple(DTYPE_BYTES)),
}


class SweepCreateSerializer(ServingSerializer):
    replicas = serializers.IntegerField(min_value=1, max_value=16, default=1)
    router = serializers.ChoiceField(choices=ROUTERS, default="round_robin")
    grid = serializers.DictField(help_text=f"Knob → list of values; knobs: {', '.join(GRID_KEYS)}; "
                                           f"at most {MAX_POINTS:,} points")

    def validate(self, attrs: dict) -> dict:
        from apps.simulators.sweeps import MAX_TOKENS, workload_build

        attrs = super().validate(attrs)
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
        from apps.simulators.engine.engine import SimulationError
        from apps.simulators.sweeps import gpu_spec

        if not grid:
            raise serializers.ValidationError("Give at least one knob with a list of values.")
        clean: dict[str, list] = {}
        for key, values in grid.items():
            if key not in GRID_KEYS:
                raise serializers.ValidationError({key: [f"Unknown knob; use {', '.join(GRID_KEYS)}."]})
            if not isinstance(values, list) or not 1 <= len(values) <= 100:
                raise serializers.ValidationError({key: ["Must be a list of 1 to 100 values."]})
            field = GRID_VALIDATORS[key]
            out = []
            for value in values:
                if key in ("replicas", "max_num_seqs", "max_num_batched_tokens", "tensor_parallel") and (
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
                        gpu_spec(slug=out[-1])
                    except SimulationError as exc:
                        raise serializers.ValidationError({key: [exc.message]})
            if len(set(map(str, out))) != len(out):
                raise serializers.ValidationError({key: ["Values must be distinct."]})
            clean[key] = out
        if grid_size(clean) > MAX_POINTS:
            raise serializers.ValidationError(f"{grid_size(clean):,} points; at most {MAX_POINTS:,} per sweep.")
        return clean


# ---- outputs ----------------------------------------------------------------------------------
class StatsSerializer(serializers.Serializer):
    p50 = serializers.FloatField()
    p90 = serializers.FloatField()
    p99 = serializers.FloatField()
    mean = serializers.FloatField()
    max = serializers.FloatField()


class EngineResultSerializer(serializers.Serializer):
    num_requests = serializers.IntegerField()
    completed = serializers.IntegerField()
    makespan_s = serializers.FloatField()
    ttft_s = StatsSerializer()
    tpot_s = StatsSerializer()
    e2e_s = StatsSerializer()
    throughput = serializers.DictField()
    goodput = serializers.DictField()
    preemptions = serializers.IntegerField()
    prefix_cache_hit_rate = serializers.FloatField()
    steps = serializers.IntegerField()
    mean_batch_size = serializers.FloatField()
    kv_cache = serializers.DictField()
    cost = serializers.DictField()
    invariants = serializers.DictField()
    series = serializers.DictField()
    histograms = serializers.DictField()
    replicas = serializers.ListField(child=serializers.DictField())
    pools = serializers.DictField(required=False)
    model = serializers.DictField()
    gpu = serializers.DictField()


class SweepPointSerializer(serializers.ModelSerializer):
    class Meta:
        model = SweepPoint
        fields = ["index", "params", "metrics", "meets_slo"]


class SweepJobSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = SweepJob
        fields = ["id", "status", "progress", "total_points", "done_points", "total_chunks", "done_chunks",
                  "error", "created_at", "started_at", "finished_at"]

    def get_progress(self, job: SweepJob) -> float:
        return round(job.done_points / job.total_points, 4) if job.total_points else 1.0


class SweepJobDetailSerializer(SweepJobSerializer):
    results = SweepPointSerializer(source="points", many=True, read_only=True)

    class Meta(SweepJobSerializer.Meta):
        fields = [*SweepJobSerializer.Meta.fields, "request", "pareto", "recommendation", "results"]
