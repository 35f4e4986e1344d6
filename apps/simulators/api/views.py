"""Simulator API: the catalog (authors edit it), one POST endpoint per analytic simulator, the engine and cluster
simulations, and sweep jobs. Views validate, call a service, respond."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from apps.core.exceptions import InvalidInput
from apps.core.models import Status
from apps.core.permissions import IsAuthorOrReadOnly
from apps.simulators import calculators, catalog, engine_jobs, sweeps
from apps.simulators.api import inputs as i
from apps.simulators.api import outputs as o
from apps.simulators.models import GPU, ModelConfig, SweepJob
from apps.simulators.simulation import run_simulation

BAD_INPUT = OpenApiResponse(description="Invalid input: `fields` names each bad field")


AUTHORING_RESPONSES = {400: BAD_INPUT, 401: None, 403: None}


class CatalogApi:
    """What a catalog list and detail share: the model, its serializers, and drafts visible to authors only."""

    permission_classes = [IsAuthorOrReadOnly]
    model = None
    write_serializer: type = None
    authoring_serializer: type = None

    def get_queryset(self):
        return self.model.objects.visible_to(self.request.user)

    def written(self, row, validated) -> dict:
        """Saves the validated fields and answers the authoring view of the row with its warnings."""
        row, warnings = calculators.catalog_write(self.model, row, validated)
        return {**self.authoring_serializer(row).data, "warnings": warnings}


class CatalogListApi(CatalogApi, generics.ListAPIView):
    """A catalog list (published entries; authors also see drafts); POST: authors add an entry (a draft by default)."""

    filter_backends = []

    def post(self, request):
        data = self.write_serializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(self.written(None, data.validated_data), status=status.HTTP_201_CREATED)


class CatalogDetailApi(CatalogApi, generics.RetrieveAPIView):
    """GET: one entry (a draft is a 404 except to authors). PATCH / DELETE: authors only."""

    lookup_field = "slug"

    def patch(self, request, slug: str):
        row = get_object_or_404(self.model, slug=slug)
        data = self.write_serializer(row, data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        return Response(self.written(row, data.validated_data))

    def delete(self, request, slug: str):
        row = get_object_or_404(self.model.objects.live(), slug=slug)
        row.status = Status.ARCHIVED  # archived, not deleted (see Status.ARCHIVED)
        row.save(update_fields=["status", "updated_at"])
        return Response(status=status.HTTP_204_NO_CONTENT)


def catalog_views(model, read, write, authoring, noun: str) -> tuple[type, type]:
    """The list and detail views of one catalog model, with their authoring calls documented."""
    attributes = {"model": model, "serializer_class": read, "write_serializer": write, "authoring_serializer": authoring}
    list_view = extend_schema_view(post=extend_schema(request=write, responses={201: authoring, **AUTHORING_RESPONSES}))(
        type(f"{model.__name__}ListApi", (CatalogListApi,), {
            **attributes, "__doc__": f"Catalog {noun}s (published ones; authors also see drafts). POST: authors add a {noun}.",
        })
    )
    detail_view = extend_schema_view(
        patch=extend_schema(request=write, responses={200: authoring, 404: None, **AUTHORING_RESPONSES}),
        delete=extend_schema(responses={204: None, 401: None, 403: None, 404: None}),
    )(type(f"{model.__name__}DetailApi", (CatalogDetailApi,), {**attributes, "__doc__": CatalogDetailApi.__doc__}))
    return list_view, detail_view


ModelListApi, ModelDetailApi = catalog_views(
    ModelConfig, o.ModelConfigSerializer, i.ModelConfigWriteSerializer, o.ModelConfigAuthoringSerializer, "model"
)
GPUListApi, GPUDetailApi = catalog_views(GPU, o.GPUSerializer, i.GPUWriteSerializer, o.GPUAuthoringSerializer, "GPU")


class SimulatorApi(APIView):
    """Base: parse `input_serializer`, call `calculate(request, data)`, answer JSON-safe numbers."""

    permission_classes = [AllowAny]
    input_serializer: type = None
    field_names: dict[str, str] | None = None
    # Parsing and validating a body costs CPU (about 3 µs per token id), so each simulator bounds its body, more
    # tightly for anonymous visitors, whose requests cost nothing to send (read by apps.core.parsers).
    max_body_bytes = 256 * 1024
    anonymous_max_body_bytes = 64 * 1024

    def body_limit(self, request) -> tuple[int, str]:
        # The body may be parsed while DRF is still authenticating (the session check reads it for a CSRF token):
        # then `request.user` would authenticate again, so take the session's user, the one being checked.
        user = request.__dict__.get("_user") or getattr(request._request, "user", None)
        if user is not None and user.is_authenticated:
            return self.max_body_bytes, f"Request body too large: at most {self.max_body_bytes:,} bytes here."
        return self.anonymous_max_body_bytes, (
            f"Request body too large: at most {self.anonymous_max_body_bytes:,} bytes for an anonymous request "
            f"here; signed in, up to {self.max_body_bytes:,} bytes.")

    def respond(self, request):
        serializer = self.input_serializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        with calculators.model_errors(self.field_names):
            result = self.calculate(request, serializer.validated_data)
        return Response(calculators.jsonable(result))

    def calculate(self, request, data: dict) -> dict:
        raise NotImplementedError


def _model(request, data):
    return catalog.request_model(request.user, data)


def _gpu(request, data):
    return catalog.request_gpu(request.user, data)


PARALLEL = ("pipeline_parallel", "data_parallel", "expert_parallel")


def _pick(data: dict, *names: str) -> dict:
    return {name: data.get(name) for name in names}


ANALYTIC_VIEWS: dict[str, type] = {}  # URL name → view, filled by @documented; api/urls.py routes each one


def documented(name: str, input_serializer, output_serializer, summary: str):
    """Register a SimulatorApi subclass under its URL name with its input serializer and its own documented `post`
    (one function per class: decorating the shared base method would leave every endpoint with the last class's
    schema)."""

    def wrap(cls):
        ANALYTIC_VIEWS[name] = cls
        def post(self, request):
            return self.respond(request)

        cls.input_serializer = input_serializer
        cls.post = extend_schema(request=input_serializer, responses={200: output_serializer, 400: BAD_INPUT},
                                 summary=summary, description=cls.__doc__)(post)
        return cls

    return wrap


@documented("kv-cache", i.KVCacheInput, o.KVCacheOutput, "KV-cache size per token, sequence, batch and GPU")
class KVCacheApi(SimulatorApi):
    """2 · L · n_kv · d_h · bytes per token (MHA/GQA/MQA), L · (kv_lora_rank + rope) · bytes for MLA."""

    def calculate(self, request, data):
        return calculators.kv_cache_calculate(model=_model(request, data), **_pick(
            data, "kv_dtype", "context_tokens", "batch_size", "tensor_parallel"))


@documented("fit", i.FitInput, o.FitOutput, "Will it fit: per-GPU memory by component, minimum TP, max sequences")
class FitApi(SimulatorApi):
    """Weights + KV cache + activations + runtime overhead against memory × gpu_memory_utilization."""

    def calculate(self, request, data):
        return calculators.fit_calculate(model=_model(request, data), gpu=_gpu(request, data), **_pick(
            data, "weight_dtype", "kv_dtype", "context_tokens", "batch_size", "tensor_parallel",
            "gpu_memory_utilization", "max_num_batched_tokens", *PARALLEL))


@documented("step-time", i.StepTimeInput, o.StepTimeOutput, "Roofline step time of one prefill or decode step")
class StepTimeApi(SimulatorApi):
    """FLOPs, bytes, arithmetic intensity vs the ridge point; compute/memory/communication time and the bound."""

    def calculate(self, request, data):
        return calculators.step_time_calculate(model=_model(request, data), gpu=_gpu(request, data), **_pick(
            data, "phase", "batch_size", "context_tokens", "prompt_tokens", "tensor_parallel", "weight_dtype",
            "kv_dtype", "gpu_memory_utilization", "expert_routing_skew", "cuda_graphs", *PARALLEL))


@documented("throughput-latency", i.ThroughputLatencyInput, o.ThroughputLatencyOutput, "Throughput vs TPOT as the batch grows")
class ThroughputLatencyApi(SimulatorApi):
    """Decode TPOT and tokens/s for batch 1, 2, 4, … up to what the KV cache allows."""

    def calculate(self, request, data):
        return calculators.throughput_latency_calculate(model=_model(request, data), gpu=_gpu(request, data), **_pick(
            data, "prompt_tokens", "output_tokens", "tensor_parallel", "weight_dtype", "kv_dtype",
            "gpu_memory_utilization", "max_num_seqs", "cuda_graphs"))


@documented("capacity", i.CapacityInput, o.CapacityOutput, "GPUs, replicas and cost for a workload under SLOs")
class CapacityApi(SimulatorApi):
    """Requests/s + token lengths + TTFT/TPOT SLOs + price → GPUs, replicas, TP, $/h and $ per million tokens."""

    field_names = {"requests_per_s": "workload.requests_per_s", "prompt_tokens": "workload.prompt_tokens",
                   "output_tokens": "workload.output_tokens", "ttft_p99_s": "slo.ttft_p99_s", "tpot_s": "slo.tpot_s"}

    def calculate(self, request, data):
        return calculators.capacity_calculate(model=_model(request, data), gpu=_gpu(request, data), **_pick(
            data, "workload", "slo", "weight_dtype", "kv_dtype", "tensor_parallel", "price_per_gpu_hour_usd",
            "gpu_memory_utilization", "max_utilization", "cuda_graphs", *PARALLEL))


@documented("speculative", i.SpeculativeInput, o.SpeculativeOutput, "Speculative decoding: tokens per step and speedup")
class SpeculativeApi(SimulatorApi):
    """E = (1 − α^(γ+1))/(1 − α) tokens per target step; speedup E/(γ·c + 1); the best γ."""

    def calculate(self, request, data):
        return calculators.speculative_calculate(**data)


@documented("collectives", i.CollectivesInput, o.CollectivesOutput, "α–β cost of an NCCL collective")
class CollectivesApi(SimulatorApi):
    """Ring / tree / one-shot all-reduce, all-gather, reduce-scatter, all-to-all on N GPUs."""

    def calculate(self, request, data):
        gpu = _gpu(request, data) if data.get("gpu") or data.get("gpu_spec") else None
        return calculators.collectives_calculate(gpu=gpu, **_pick(
            data, "op", "message_bytes", "num_gpus", "link_bandwidth_bytes_per_s", "latency_s", "algorithm"))


@documented("paged-kv", i.PagedKVInput, o.PagedKVOutput, "Paged KV blocks vs contiguous max-length reservation")
class PagedKVApi(SimulatorApi):
    """Waste of reserving max_model_len per sequence vs ceil(s / block_size) blocks."""

    def calculate(self, request, data):
        model = _model(request, data) if data.get("model") or data.get("config") else None
        return calculators.paged_kv_calculate(model=model, **_pick(
            data, "sequence_lengths", "block_size", "max_model_len", "kv_dtype"))


@documented("prefix-cache", i.PrefixCacheInput, o.PrefixCacheOutput, "Prefix caching: block hash chains and LRU hit rate")
class PrefixCacheApi(SimulatorApi):
    """Prompts are cut into full blocks; block key = hash(parent key, block tokens); replay through an LRU cache."""

    max_body_bytes = 1_000_000  # about 150,000 token ids, the signed-in token cap

    def calculate(self, request, data):
        if data.get("synthetic"):
            prompts = calculators.synthetic_prompt_tokens(**data["synthetic"])
        elif data.get("texts") is not None:
            prompts = [calculators.tokenize_prompt(text=t, tokens=None, tokenizer=None) for t in data["texts"]]
        else:
            prompts = [calculators.tokenize_prompt(text=None, tokens=p, tokenizer=None) for p in data["prompts"]]
        return calculators.prefix_cache_calculate(prompts=prompts, block_size=data["block_size"],
                                               capacity_blocks=data["capacity_blocks"])


@documented("moe", i.MoEInput, o.MoEOutput, "MoE routing: per-expert load, imbalance, drops, distinct experts")
class MoEApi(SimulatorApi):
    """Zipf-skewed top-k routing of `tokens` over `num_experts` with a capacity factor."""

    def calculate(self, request, data):
        return calculators.moe_calculate(**data)


@documented("request-walk", i.RequestWalkInput, o.RequestWalkOutput, "One request, step by step: prefill then each decode step")
class RequestWalkApi(SimulatorApi):
    """Tokenize the prompt (client token ids, or the documented approximation), then a timeline with TTFT and ITL."""

    def calculate(self, request, data):
        prompt = calculators.tokenize_prompt(text=data.get("prompt"), tokens=data.get("tokens"),
                                          tokenizer=data.get("tokenizer"))
        if not prompt.ids:
            raise InvalidInput("the prompt has no tokens", field="prompt")
        return calculators.request_walk_calculate(model=_model(request, data), gpu=_gpu(request, data), prompt=prompt,
                                               **_pick(data, "output_tokens", "batch_size", "tensor_parallel",
                                                       "weight_dtype", "kv_dtype", "gpu_memory_utilization"))


@documented("serve-config", i.ServeConfigInput, o.ServeConfigOutput, "A `vllm serve` command and a Kubernetes Deployment")
class ServeConfigApi(SimulatorApi):
    """Every flag explained, the parallel layout included (TP, PP, DP, EP); TP defaults to the smallest that fits the
    workload (to expert_parallel / data_parallel with expert parallelism). The Kubernetes YAML requests TP · PP · DP
    GPUs: one pod up to a node, a LeaderWorkerSet of whole nodes past it."""

    field_names = {"max_model_len": "workload.prompt_tokens"}

    def calculate(self, request, data):
        return calculators.serve_config_calculate(model=_model(request, data), gpu=_gpu(request, data), **_pick(
            data, "workload", "tensor_parallel", "weight_dtype", "kv_dtype", "gpu_memory_utilization",
            "max_num_seqs", "enable_prefix_caching", *PARALLEL))


# ---------------------------------------------------------------- engine, cluster and sweeps


class EngineSimulateApi(APIView):
    permission_classes = [AllowAny]
    input_serializer = i.EngineInput

    @extend_schema(request=i.EngineInput, responses={200: o.EngineOutput, 400: BAD_INPUT},
                   summary="Simulate one serving engine (vLLM V1-style scheduler) on a workload")
    def post(self, request):
        data = self.input_serializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(run_simulation(user=request.user, params=data.validated_data))


class ClusterSimulateApi(EngineSimulateApi):
    input_serializer = i.ClusterInput

    @extend_schema(request=i.ClusterInput, responses={200: o.EngineOutput, 400: BAD_INPUT},
                   summary="Simulate replicas behind a router, optionally with prefill/decode disaggregation")
    def post(self, request):
        return super().post(request)


class SweepListCreateApi(generics.ListAPIView):
    permission_classes = [IsAuthenticated]
    serializer_class = o.SweepJobOutput

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return SweepJob.objects.none()
        return sweeps.sweep_job_list(user=self.request.user)

    def get_throttles(self):
        if self.request.method == "POST":
            self.throttle_scope = "sweeps"
            return [ScopedRateThrottle()]
        return super().get_throttles()

    @extend_schema(summary="Your sweep jobs, newest first")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def handle_exception(self, exc):
        response = super().handle_exception(exc)
        retry_after = getattr(exc, "retry_after", None)  # sweeps.BacklogFull: when the queue should have room
        if retry_after is not None:
            response["Retry-After"] = str(retry_after)
        return response

    @extend_schema(request=i.SweepInput,
                   responses={202: o.SweepJobOutput,
                              400: OpenApiResponse(description="Invalid input, or the sweep's estimated cost alone "
                                                               "exceeds the per-user budget"),
                              429: OpenApiResponse(description="Three sweeps already queued or running, the user's "
                                                               "budget held by them, or throttled"),
                              503: OpenApiResponse(description="The job queue is unavailable, or full (Retry-After)")},
                   summary="Start a configuration sweep (grid of knob values) as Celery chunk tasks")
    def post(self, request):
        data = i.SweepInput(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        job = sweeps.sweep_job_create(user=request.user, request=dict(data.validated_data))
        return Response(o.SweepJobOutput(job).data, status=status.HTTP_202_ACCEPTED)


class SweepDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[i.SweepResultsQuery],
                   responses={200: o.SweepJobDetailOutput, 400: OpenApiResponse(description="Bad page or page_size"),
                              404: OpenApiResponse(description="No such sweep of yours")},
                   summary="A sweep's status, progress, Pareto frontier, recommendation and a page of its results")
    def get(self, request, job_id):
        query = i.SweepResultsQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        job = sweeps.sweep_job_page(user=request.user, job_id=job_id, **query.validated_data)
        return Response(o.SweepJobDetailOutput(job).data)


class SweepStatusApi(APIView):
    """What a page polls while a sweep runs: one row, none of its points."""
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: o.SweepJobOutput, 404: OpenApiResponse(description="No such sweep of yours")},
                   summary="A sweep's status and progress alone, cheap enough to poll every second")
    def get(self, request, job_id):
        return Response(o.SweepJobOutput(sweeps.sweep_job_get(user=request.user, job_id=job_id)).data)


class SweepCancelApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: o.SweepJobOutput, 404: OpenApiResponse(description="No such sweep")},
                   summary="Cancel a queued or running sweep (remaining chunks are skipped)")
    def post(self, request, job_id):
        job = sweeps.sweep_job_cancel(user=request.user, job_id=job_id)
        return Response(o.SweepJobOutput(job).data)


# ---------------------------------------------------------------- engine and cluster runs as background jobs

ENGINE_JOB_404 = OpenApiResponse(description="No such simulation of yours")


class EngineJobListCreateApi(APIView):
    permission_classes = [IsAuthenticated]

    def get_throttles(self):
        if self.request.method == "POST":
            self.throttle_scope = "sweeps"
            return [ScopedRateThrottle()]
        return super().get_throttles()

    @extend_schema(responses={200: o.EngineJobSummaryOutput(many=True)}, summary="Your background simulations, newest first")
    def get(self, request):
        return Response(o.EngineJobSummaryOutput(engine_jobs.engine_job_list(user=request.user), many=True).data)

    @extend_schema(request=i.EngineJobInput,
                   responses={202: o.EngineJobOutput, 400: BAD_INPUT,
                              409: OpenApiResponse(description="A simulation of yours is already queued or running")},
                   summary="Run an engine or cluster simulation past the synchronous caps (up to 20,000 requests) "
                           "as a background job; poll its url")
    def post(self, request):
        data = i.EngineJobInput(data=request.data)
        data.is_valid(raise_exception=True)
        job = engine_jobs.engine_job_create(user=request.user, params=_json_ready(data.validated_data))
        body = o.EngineJobOutput(job).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class EngineJobDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: o.EngineJobOutput, 404: ENGINE_JOB_404},
                   summary="A background simulation's status, progress and, once it succeeded, its result")
    def get(self, request, job_id):
        return Response(o.EngineJobOutput(engine_jobs.engine_job_get(user=request.user, job_id=job_id)).data)


class EngineJobCancelApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: o.EngineJobOutput, 404: ENGINE_JOB_404},
                   summary="Cancel a queued or running background simulation (the worker stops at its next report)")
    def post(self, request, job_id):
        return Response(o.EngineJobOutput(engine_jobs.engine_job_cancel(user=request.user, job_id=job_id)).data)


def _json_ready(value):
    """Validated data holds OrderedDicts and tuples; the job stores plain JSON."""
    if isinstance(value, dict):
        return {key: _json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(item) for item in value]
    return value
