"""Response serializers: the single definition of every simulator response shape (the schema and the typed client
are generated from these)."""

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from apps.core.serializers import documented_json
from apps.simulators.api import inputs as i
from apps.simulators.api.inputs import GPUWriteSerializer, ModelConfigWriteSerializer
from apps.simulators.models import GPU, EngineJob, ModelConfig, SweepJob, SweepPoint


class ModelConfigSerializer(serializers.ModelSerializer):
    class Meta:
        model = ModelConfig
        exclude = ["id", "status"]


class GPUSerializer(serializers.ModelSerializer):
    class Meta:
        model = GPU
        exclude = ["id", "status"]



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
GPUSummary = output("GPUSummary", slug=S, name=S, memory_bytes=F, marketing_memory_bytes=F(allow_null=True),
                    hbm_bandwidth_bytes_per_s=F,
                    interconnect_bandwidth_bytes_per_s=F, price_per_hour_usd=F)
FlagValue = documented_json({"oneOf": [{"type": "string"}, {"type": "number"}], "nullable": True,
                             "description": "A number, a word, or null for a switch"}, "FlagValue")
Warnings = serializers.ListField(child=serializers.CharField(), help_text="Things that are allowed but suspicious")



def parallel() -> dict:
    """The layout a response was computed for (modeling.parallel): degrees and the GPUs of one deployment."""
    return {"tensor_parallel": I, "pipeline_parallel": I, "data_parallel": I, "expert_parallel": I, "gpus": I}


def feasibility() -> dict:
    """The verdict of every timing endpoint (step-time, throughput-latency, request-walk, capacity), from
    modeling.memory.feasibility; fresh field instances for each response."""
    return {
        "fits": B(help_text="Weights + KV of this setup + activations + runtime fit in memory × "
                            "gpu_memory_utilization on every GPU at this tensor_parallel"),
        "feasible": B(help_text="It can run as asked: it fits and vLLM accepts the TP (capacity: a plan meets the "
                                "SLOs). When false, the timings are what it would take if it ran"),
        "reason": S(help_text="Why, with the numbers: bytes per GPU against the budget, the TP rule, or the SLO"),
        "min_tensor_parallel": I(allow_null=True, help_text="Smallest TP of 1, 2, 4, 8 that divides the heads and "
                                                            "fits; null when none does"),
        "fix_weight_dtype": S(allow_null=True, help_text="When it does not fit: the first lighter weight dtype of "
                                                         "bf16, fp8, int4 that fits at this TP; else null"),
        "fix": S(help_text="The smallest fix in words; empty when feasible"),
    }


KVCacheOutput = output(
    "KVCacheOutput", model=Summary(), bytes_per_token=F, bytes_per_token_per_gpu=F, bytes_per_sequence=F,
    bytes_per_sequence_per_gpu=F, total_bytes=F, per_gpu_bytes=F, all_gpus_bytes=F, heads_per_gpu=I,
    sharded_by_tp=B, sliding_window_layers=I, derivation=S, warnings=Warnings)
FitOutput = output(
    "FitOutput", model=Summary(), gpu=GPUSummary(), fits=B, memory_bytes=F, budget_bytes=F,
    per_gpu_bytes=output("FitComponents", weights=F, kv_cache=F, activations=F, runtime_overhead=F, free=F)(),
    total_bytes_per_gpu=F, headroom_bytes=F, kv_budget_bytes_per_gpu=F, max_concurrent_sequences=F,
    max_concurrent_sequences_all_ranks=F, **parallel(), min_tensor_parallel=I(allow_null=True),
    min_tensor_parallel_tried=many(output("TPTry", tp=I, valid=B, fits=B, headroom_bytes=F)),
    weight_bytes_total=F, derivation=S, min_tensor_parallel_derivation=S, warnings=Warnings)
Prior = output("Prior", low=F, expected=F, high=F, source=S)  # modeling.roofline.Prior
RooflinePoint = output("RooflinePoint", phase=S, arithmetic_intensity_flops_per_byte=F, achieved_flops_per_s=F, bound=S)
StepTimeOutput = output(
    "StepTimeOutput", model=Summary(), gpu=GPUSummary(), phase=S, tokens=I, flops=F, bytes=F, weight_bytes=F,
    kv_bytes=F, arithmetic_intensity_flops_per_byte=F, ridge_point_flops_per_byte=F, peak_flops_per_s=F,
    compute_seconds=F, memory_seconds=F, communication_seconds=F, overhead_seconds=F,
    expert_kernels_seconds=F(help_text="The routed experts' fixed kernel time per step, part of overhead_seconds: "
                                       "27.8 µs per MoE layer beyond streaming the experts' weights (fused_moe "
                                       "kernel benchmarks); 0 for a dense model"),
    parts=output("StepPart", part=S, compute_seconds=F, memory_seconds=F, seconds=F, overlapped=B)(
        many=True, help_text="The parts of a layer, which run one after the other: the GEMMs (weights and activations), "
                  "attention (its FLOPs and the KV reads) and a MoE model's routed experts. A part whose compute and "
                  "memory traffic overlap (`overlapped`: the GEMMs, attention) takes the longer of the two; the "
                  "routed experts take their sum (the no-overlap bound). The parts' seconds plus communication and "
                  "overhead make the step"),
    step_seconds=F,
    step_seconds_range=floats(), tokens_per_s=F, tokens_per_s_range=floats(), output_tokens_per_s=F,
    deployment_tokens_per_s=F, expert_imbalance=F, all_to_all_seconds=F, **parallel(), bound=S,
    crossover_batch=F, crossover_reachable=B,
    roofline=output("Roofline", peak_flops_per_s=F, bandwidth_bytes_per_s=F, ridge_point_flops_per_byte=F,
                    points=many(RooflinePoint))(),
    **feasibility(), note=S, derivation=S, feasibility_derivation=S, priors=output(
        "EfficiencyPriors", **{name: Prior() for name in ("mfu", "decode_mfu", "mbu", "kv_read_efficiency",
                                                          "comm_efficiency", "step_overhead_s",
                                                          "per_request_overhead_s")},
        basis=output("PriorBasis", family=S, compute_dtype=S, fitted=B, reason=S)(
            help_text="Which priors these are: fitted on measurements of this GPU family and compute dtype, or "
                      "borrowed (with the reason) where there are none"))(
        help_text="The efficiency factors used, the GPU family's for the deployment's compute dtype (BF16, FP8, FP4): "
        "fitted to published measurements where there are some (each source names the fixture rows), else derived "
        "(basis.reason) or hand-set"),
    warnings=Warnings)
CurvePoint = output(
    "CurvePoint", batch_size=I,
    tpot_seconds=F(help_text="Time between a client's tokens: the decode step plus the prefill time the engine "
                   "interleaves per output token (t_d + b·ISL·c_p/OSL)"),
    tpot_seconds_range=floats(),
    tokens_per_s=F(help_text="Output tokens/s of the replica, prefill work included: OSL·b/(OSL·t_d + b·ISL·c_p)"),
    tokens_per_s_range=floats(), tokens_per_s_per_gpu=F, bound=S,
    decode_step_seconds=F(help_text="The pure decode step t_d of the batch"), decode_step_seconds_range=floats())
ThroughputLatencyOutput = output(
    "ThroughputLatencyOutput", model=Summary(), gpu=GPUSummary(), points=many(CurvePoint), max_batch=I,
    tensor_parallel=I,
    prefill_seconds_per_token=F(help_text="c_p: one prefill step of the 8,192-token budget ÷ its tokens"),
    bound=S, crossover_batch=F, **feasibility(), note=S, derivation=S, warnings=Warnings)
CapacityOutput = output(
    "CapacityOutput", model=Summary(), gpu=GPUSummary(), gpus=I, gpus_range=floats(), replicas=I,
    replicas_range=floats(), tp=I(allow_null=True), batch_per_replica=I, requests_per_s_per_replica=F,
    ttft_seconds=F, tpot_seconds=F(help_text="Time between a client's tokens at the plan's utilization: the decode "
                                    "step stretched by the prefills the replica interleaves with it"),
    utilization=F, price_per_gpu_hour_usd=F, usd_per_hour=F, usd_per_hour_range=floats(), usd_per_million_tokens=F, usd_per_million_tokens_range=floats(),
    usd_per_million_output_tokens=F, limiting_factor=S, bound=S, **feasibility(), note=S, derivation=S,
    warnings=Warnings)
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
TimelineStep = output("TimelineStep", kind=S, index=I(help_text="The output token the step emits (prefill: 1)"), tokens=I, start_seconds=F, end_seconds=F,
                      kv_bytes=F, bound=S,
                      compute_utilization=F(help_text="Achieved FLOP/s per GPU ÷ the GPU's peak FLOP/s for this step"),
                      bandwidth_utilization=F(help_text="Bytes moved per second per GPU ÷ the GPU's HBM bandwidth"))
RequestWalkOutput = output(
    "RequestWalkOutput", model=Summary(), gpu=GPUSummary(), tokenizer=S, prompt_tokens=I,
    token_ids=serializers.ListField(child=serializers.IntegerField()),
    token_pieces=serializers.ListField(child=serializers.CharField()), output_tokens=I, ttft_seconds=F,
    ttft_seconds_range=floats(), itl_seconds=F, itl_seconds_range=floats(),
    total_seconds=F(help_text="TTFT (the prefill emits output token 1) + (output − 1) decode steps"),
    decode_steps=I(help_text="output_tokens − 1"), kv_bytes_per_token=F,
    prefill_bound=S, decode_bound=S, bound=S, crossover_batch=F, decode_weight_bytes_per_step=F,
    peak_flops_per_s=F(help_text="Dense peak FLOP/s of the GPU for the weights' dtype"), peak_bandwidth_bytes_per_s=F,
    timeline=many(TimelineStep), **feasibility(), derivation=S, warnings=Warnings)
ServeFlag = output("ServeFlag", flag=S, value=FlagValue(allow_null=True), why=S)
ServeConfigOutput = output(
    "ServeConfigOutput", model=Summary(), gpu=GPUSummary(), **parallel(), max_model_len=I, command=S,
    flags=many(ServeFlag), kubernetes_yaml=S, derivation=S,
    warnings=Warnings)


# ---------------------------------------------------------------- engine, cluster and sweeps
class LatencyStats(serializers.Serializer):
    p50 = serializers.FloatField()
    p90 = serializers.FloatField()
    p99 = serializers.FloatField()
    mean = serializers.FloatField()
    max = serializers.FloatField()


Histogram = output("Histogram", edges=floats(help_text="Bin edges, seconds (one more than counts)"),
                   counts=serializers.ListField(child=serializers.IntegerField()))
SlugName = output("SlugName", slug=S, name=S)


class EngineOutput(serializers.Serializer):
    """What apps.simulators.engine.simulate returns (metrics.request_summary, simulate._result) plus the model and
    GPU it ran."""

    num_requests = I()
    completed = I()
    makespan_s = F(help_text="First arrival to last finish")
    ttft_s = LatencyStats()
    tpot_s = LatencyStats()
    e2e_s = LatencyStats()
    throughput = output("Throughput", requests_per_s=F, output_tokens_per_s=F)()
    goodput = output("Goodput", requests_per_s=F, fraction=F(help_text="Share of requests meeting both SLOs"),
                     slo=output("EngineSLO", ttft_s=F, tpot_s=F)())()
    preemptions = I()
    prefix_cache_hit_rate = F()
    steps = I()
    mean_batch_size = F()
    kv_cache = output("EngineKVCache", blocks_per_replica=I, block_size=I, capacity_tokens_per_replica=I,
                      bytes_per_token_per_gpu=F)()
    cost = output("EngineCost", gpus=I, usd_per_hour=F,
                  usd_per_million_output_tokens=F(help_text="1e12 when nothing was served"))()
    invariants = output(
        "EngineInvariants", tokens_conserved=B, tokens_computed=I, tokens_expected=I, all_finished=B,
        littles_law=output("LittlesLaw", mean_concurrency=F, throughput_times_latency=F, relative_error=F,
                           tolerance=F, ok=B)())()
    series = output("EngineSeries", t_s=floats(), queue_depth=floats(), running=floats(), kv_usage=floats(
        help_text="Share of KV blocks in use, averaged over the engines"))()
    histograms = output("LatencyHistograms", ttft_s=Histogram(), tpot_s=Histogram())()
    replicas = many(output("EngineReplica", requests=I, steps=I, preemptions=I, prefix_cache_hit_rate=F,
                           mean_batch_size=F, busy_fraction=F, output_tokens=I))
    pools = output("EnginePools", prefill=I(help_text="Prefill replicas"), decode=I(help_text="Decode replicas"))(
        required=False, help_text="Disaggregated prefill/decode only")
    kv_transfer_s = output("KVTransfer", mean=F, max=F)(
        required=False, help_text="Disaggregated only: a request's KV transfer from prefill to decode, seconds")
    step_log = output(
        "EngineStep", step=I, end_s=F(help_text="When the step ended"), duration_s=F, waiting=I(help_text="Queued during the step"),
        running=I(help_text="Requests holding a batch slot during the step"),
        kv_blocks_used=I(help_text="Held during the step, its new tokens included"),
        tokens=I(help_text="Prompt and output tokens computed in the step"),
        admitted=many(output("EngineStepAdmission", request=I(help_text="The request's index in the workload"),
                             prompt_tokens=I)),
        held_back=output("EngineStepHeldBack", request=I, tokens=I(help_text="Its whole sequence: prompt (+ output "
                                                                           "so far, after a preemption)"),
                         blocks_needed=I(help_text="Blocks for the whole sequence, after prefix-cache hits"),
                         blocks_free=I)(allow_null=True, help_text=(
            "The head of the queue, waiting because its whole prompt does not fit yet although its first chunk "
            "may (scheduler_reserve_full_isl); null when nothing was held back")))(
        many=True, required=False, help_text="Only when trace_steps > 0: the first engine's first steps")
    model = SlugName()
    gpu = SlugName()


def one_of(name: str, *shapes: type[serializers.Serializer], **kwargs) -> PolymorphicProxySerializer:
    """Exactly one of these shapes (told apart by their required fields)."""
    return PolymorphicProxySerializer(component_name=name, serializers=list(shapes), resource_type_field_name=None,
                                      many=False, **kwargs)


def infeasible(name: str, **extra) -> type[serializers.Serializer]:
    return output(name, feasible=B(help_text="false: the point could not run"),
                  error=S(help_text="The field and why, e.g. `tensor_parallel: TP=8 does not divide ...`"), **extra)


ScreenResult = one_of(  # engine.screen.Screen.point
    "ScreenResult",
    output("ScreenedPoint", feasible=B(help_text="true: priced by the screen"), ttft_p99_s=F, tpot_p99_s=F,
           usd_per_million_tokens=F, utilization=F, meets_slo=B),
    infeasible("ScreenInfeasiblePoint"), help_text="The closed-form screen's figures for this point (two-stage sweeps)")
Percentiles = output("Percentiles", p50=F, p90=F, p99=F)
PointMetrics = output(
    "SweepPointMetrics", feasible=B(help_text="true: the point ran"), ttft_s=Percentiles(), tpot_s=Percentiles(),
    e2e_s=output("E2EPercentiles", p50=F, p99=F)(), output_tokens_per_s=F, goodput_requests_per_s=F,
    goodput_fraction=F, preemptions=I, gpus=I, usd_per_hour=F, usd_per_million_tokens=F,
    longest_request_tokens=I, screen=documented_json(ScreenResult, "ScreenField")(required=False),
    pools=output("SweepPools", **{pool: output(f"Sweep{pool.title()}Pool", replicas=I, busy_fraction=F)()
                                  for pool in ("prefill", "decode")})(
        required=False, help_text="Disaggregated points: each pool's replicas and mean busy fraction (the engine's)"),
    kv_transfer_s=output("SweepKVTransfer", mean=F, max=F)(
        required=False, help_text="Disaggregated points: the engine's KV transfer time per request"))
MetricsField = documented_json(one_of(  # simulation.point_compute, plus sweeps.sweep_chunk_run's `screen`
    "SweepPointResult", PointMetrics,
    infeasible("InfeasibleSweepPoint", screen=documented_json(ScreenResult, "ScreenField")(required=False),
               excluded=B(required=False, help_text="true: over a budget or the replica limit, so never run"))),
    "MetricsField")
ParetoPoint = output(  # sweeps._frontier_point
    "ParetoPoint", index=I, usd_per_million_tokens=F, ttft_p99_s=F, tpot_p99_s=F,
    layout=S(help_text='The deployment, e.g. "3 prefill + 1 decode replicas × TP 2 (8 GPUs, KV over NVLink)"'),
    disaggregated=B(help_text="true: a prefill/decode disaggregated layout"), gpus=I,
    engine=output("EngineVerdict", simulated=B, meets_slo=B, goodput_fraction=F)(),
    screen=documented_json(ScreenResult, "ScreenField")(required=False))
SweepScreen = output(  # sweeps.sweep_screen and sweep_finalize
    "SweepScreen", mode=S(required=False, help_text="two_stage or exhaustive"), grid_points=I(required=False),
    simulated=I(required=False),
    feasible=I(required=False, help_text="Two-stage: points the screen found feasible"),
    meets_slo=I(required=False, help_text="Two-stage: points the screen puts within the SLO"),
    seconds=F(required=False, help_text="Two-stage: the screen's time"),
    disaggregated=I(required=False, help_text="P/D points within the budgets, all simulated (never screened)"),
    excluded=I(required=False, help_text="Points over a budget or the replica limit, never run"),
    excluded_example=S(required=False, help_text="One excluded point's reason"),
    candidates=serializers.ListField(child=I(), required=False, help_text="Two-stage: the grid indices simulated"),
    points=serializers.DictField(child=documented_json(ScreenResult, "ScreenField")(), required=False,
                                 help_text="Two-stage: grid index → the screen's figures, for the candidates"),
    agreement=output("ScreenAgreement", simulated=I, same_verdict=I, engine_meets_slo=I, screen_meets_slo=I)(
        required=False, help_text="Two-stage, when done: how often screen and engine agreed"))
SweepKnobs = type("SweepKnobs", (serializers.Serializer,), {
    "__doc__": "One sweep point's knob values: one value per knob of the grid",
    **i.knob_fields(lambda field: type(field)(*field._args, **{**field._kwargs, "required": False}))})
KnobsField = documented_json(SweepKnobs, "KnobsField")


class SweepPointOutput(serializers.ModelSerializer):
    params = KnobsField(read_only=True, help_text="This point's knob values")
    metrics = MetricsField(read_only=True)

    class Meta:
        model = SweepPoint
        fields = ["index", "params", "metrics", "meets_slo"]


Recommendation = output(  # sweeps._recommend
    "SweepRecommendation", index=I, params=SweepKnobs(), metrics=PointMetrics(), command=S(help_text="`vllm serve ...`"),
    flags=many(ServeFlag), replicas=I(help_text="Replicas (a P/D layout: prefill + decode)"), router=S,
    layout=S(help_text="The deployment in words, with its GPUs"), disaggregated=B, reason=S,
    compared=output("LayoutComparison", **{kind: output(f"Best{kind.title()}", index=I, layout=S, gpus=I,
                                                        usd_per_hour=F, usd_per_million_tokens=F, ttft_p99_s=F,
                                                        tpot_p99_s=F, meets_slo=B, why=S)(
        allow_null=True, help_text=f"The best {kind} point: the cheapest meeting the SLO, else the nearest to it; "
                                   "null when none ran") for kind in ("colocated", "disaggregated")})(
        required=False, help_text="Grids with P/D layouts: the best of each kind, side by side"))


class SweepJobOutput(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = SweepJob
        fields = ["id", "status", "progress", "total_points", "done_points", "total_chunks", "done_chunks",
                  "error", "created_at", "started_at", "finished_at"]

    def get_progress(self, job: SweepJob) -> float:
        return round(job.done_points / job.total_points, 4) if job.total_points else 1.0


class SweepJobDetailOutput(SweepJobOutput):
    screen = documented_json(SweepScreen, "SweepScreenField")(read_only=True, help_text=(
        "Stage one: the screen's summary; {} for a sweep made before screening"))
    request = documented_json(i.SweepInput, "SweepRequestField")(
        read_only=True, help_text="Base configuration, workload, SLOs and grid as validated (defaults filled in)")
    pareto = documented_json(ParetoPoint(many=True), "ParetoField")(
        read_only=True, help_text="Points meeting the SLO not beaten on both cost and p99 TTFT, cheapest first")
    recommendation = documented_json(Recommendation(allow_null=True), "RecommendationField")(
        read_only=True, allow_null=True, help_text="The cheapest point meeting the SLO; null until done or when none does")
    results_count = serializers.IntegerField(read_only=True, help_text="Points simulated so far, on every page")
    page = serializers.IntegerField(read_only=True)
    page_size = serializers.IntegerField(read_only=True)
    next_page = serializers.IntegerField(read_only=True, allow_null=True, help_text="null on the last page")
    results = SweepPointOutput(source="page_points", many=True, read_only=True,
                               help_text="This page of the simulated points, by index")

    class Meta(SweepJobOutput.Meta):
        fields = [*SweepJobOutput.Meta.fields, "request", "screen", "pareto", "recommendation", "results_count",
                  "page", "page_size", "next_page", "results"]


class EngineJobOutput(serializers.ModelSerializer):
    result = documented_json(EngineOutput(allow_null=True), "EngineJobResultField")(
        read_only=True, allow_null=True, help_text="What /engine/ (or /cluster/) would answer; null until succeeded")
    error = documented_json({"type": "object", "nullable": True, "properties": {
        "detail": {"type": "string"}, "fields": {"type": "object", "additionalProperties": {
            "type": "array", "items": {"type": "string"}}}}}, "EngineJobErrorField")(
        read_only=True, allow_null=True, help_text="Why there is no result, by field; null unless failed")
    url = serializers.SerializerMethodField()

    class Meta:
        model = EngineJob
        fields = ["id", "status", "progress", "num_requests", "result", "error", "created_at", "started_at",
                  "finished_at", "url"]

    def get_url(self, job: EngineJob) -> str:
        return f"/api/v1/simulators/engine-jobs/{job.id}/"


class EngineJobSummaryOutput(EngineJobOutput):
    class Meta(EngineJobOutput.Meta):
        fields = [f for f in EngineJobOutput.Meta.fields if f != "result"]
