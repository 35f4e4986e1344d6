"""Engine and cluster simulation (synchronous) and sweep jobs (Celery) endpoints."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from apps.simulators import sweeps
from apps.simulators.engine.engine import SimulationError
from apps.simulators.engine.workload import WorkloadError
from apps.simulators.engine_serializers import (
    ClusterSerializer,
    EngineResultSerializer,
    ServingSerializer,
    SweepCreateSerializer,
    SweepJobDetailSerializer,
    SweepJobSerializer,
)
from apps.simulators.modeling import ModelInputError
from apps.simulators.models import SweepJob

ERRORS = {400: OpenApiResponse(description="Invalid input; `fields` names each bad field")}


class TooManySweepsError(APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_detail = "Too many sweeps running."
    default_code = "too_many_sweeps"


def _simulate(params: dict) -> dict:
    try:
        return sweeps.simulation_run(params=params)
    except (SimulationError, WorkloadError, ModelInputError) as exc:
        raise ValidationError({exc.field: [exc.message]})


class EngineSimulateApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(request=ServingSerializer, responses={200: EngineResultSerializer, **ERRORS},
                   summary="Simulate one serving engine (vLLM V1-style scheduler) on a workload")
    def post(self, request):
        data = ServingSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(_simulate(data.validated_data))


class ClusterSimulateApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(request=ClusterSerializer, responses={200: EngineResultSerializer, **ERRORS},
                   summary="Simulate replicas behind a router, optionally with prefill/decode disaggregation")
    def post(self, request):
        data = ClusterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(_simulate(data.validated_data))


class SweepListCreateApi(ListAPIView):
    permission_classes = [IsAuthenticated]
    serializer_class = SweepJobSerializer

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

    @extend_schema(request=SweepCreateSerializer,
                   responses={202: SweepJobSerializer, **ERRORS,
                              429: OpenApiResponse(description="Three sweeps already running, or throttled"),
                              503: OpenApiResponse(description="The job queue is unavailable")},
                   summary="Start a configuration sweep (grid of knob values) as Celery chunk tasks")
    def post(self, request):
        data = SweepCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            job = sweeps.sweep_job_create(user=request.user, request=dict(data.validated_data))
        except sweeps.TooManySweeps as exc:
            raise TooManySweepsError(str(exc))
        return Response(SweepJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class SweepDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: SweepJobDetailSerializer, 404: OpenApiResponse(description="No such sweep of yours")},
                   summary="A sweep's status, progress, results so far, Pareto frontier and recommendation")
    def get(self, request, job_id):
        job = sweeps.sweep_job_get(user=request.user, job_id=job_id)
        return Response(SweepJobDetailSerializer(job).data)


class SweepCancelApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SweepJobSerializer, 404: OpenApiResponse(description="No such sweep")},
                   summary="Cancel a queued or running sweep (remaining chunks are skipped)")
    def post(self, request, job_id):
        job = sweeps.sweep_job_cancel(user=request.user, job_id=job_id)
        return Response(SweepJobSerializer(job).data)
