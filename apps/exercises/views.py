"""Design exercise API: thin views over apps.exercises.services."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.rendering import render_markdown
from apps.exercises import serializers as s
from apps.exercises import services
from apps.exercises.filters import ExerciseFilter

BAD_INPUT = OpenApiResponse(description="Invalid input; `fields` names the field (deployment.<knob> for a knob)")
NOT_FOUND = OpenApiResponse(description="No such exercise (or attempt of yours)")
SIGN_IN = OpenApiResponse(description="Sign in: attempts live on your account")


class ExerciseListApi(generics.ListAPIView):
    """Capacity-planning exercises: a model, traffic, SLOs and constraints; answered with a deployment that the
    simulators grade."""
    serializer_class = s.DesignExerciseSummary
    filterset_class = ExerciseFilter

    def get_queryset(self):
        return services.exercise_list(user=self.request.user)


class ExerciseDetailApi(APIView):
    @extend_schema(responses={200: s.DesignExerciseDetail, 404: NOT_FOUND},
                   summary="One exercise: the brief, traffic, SLOs, constraints and sources (the key points are "
                           "shown with a graded attempt)")
    def get(self, request, slug: str):
        exercise = services.exercise_get(user=request.user, slug=slug)
        exercise.brief_html = render_markdown(exercise.brief)
        exercise.key_point_count = len(exercise.key_points)
        return Response(s.DesignExerciseDetail(exercise).data)


class AttemptListApi(APIView):
    def get_permissions(self):
        return [IsAuthenticated()] if self.request.method == "GET" else super().get_permissions()

    @extend_schema(responses={200: s.DesignAttemptOutput(many=True), 401: SIGN_IN, 404: NOT_FOUND},
                   summary="Your graded attempts at this exercise, newest first")
    def get(self, request, slug: str):
        return Response(s.DesignAttemptOutput(services.attempt_list(user=request.user, slug=slug), many=True).data)

    @extend_schema(request=s.DesignAttemptInput, responses={201: s.DesignAttemptOutput, 200: s.DesignAttemptOutput, 400: BAD_INPUT,
                                                      404: NOT_FOUND},
                   summary="Propose a deployment: graded by the engine/cluster simulation against the exercise's "
                           "SLOs, constraints and best known answer. Saved when signed in (201); graded only "
                           "otherwise (200)")
    def post(self, request, slug: str):
        data = s.DesignAttemptInput(data=request.data)
        data.is_valid(raise_exception=True)
        attempt = services.attempt_submit(user=request.user, slug=slug, **data.validated_data)
        return Response(s.DesignAttemptOutput(attempt).data,
                        status=status.HTTP_201_CREATED if attempt.pk else status.HTTP_200_OK)


class AttemptDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: s.DesignAttemptOutput, 401: SIGN_IN, 404: NOT_FOUND}, summary="One of your attempts")
    def get(self, request, slug: str, attempt_id: int):
        return Response(s.DesignAttemptOutput(services.attempt_get(user=request.user, slug=slug, attempt_id=attempt_id)).data)

    @extend_schema(request=s.DesignRatingInput, responses={200: s.DesignAttemptOutput, 400: BAD_INPUT, 401: SIGN_IN, 404: NOT_FOUND},
                   summary="Rate your rationale: which of the exercise's key points it covers")
    def patch(self, request, slug: str, attempt_id: int):
        attempt = services.attempt_get(user=request.user, slug=slug, attempt_id=attempt_id)
        data = s.DesignRatingInput(data=request.data, context={"exercise": attempt.exercise})
        data.is_valid(raise_exception=True)
        return Response(s.DesignAttemptOutput(services.attempt_rate(attempt=attempt, **data.validated_data)).data)
