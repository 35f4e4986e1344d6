"""Study plan API: thin views over apps.plans.services."""

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.plans import serializers as s
from apps.plans import services

ERRORS = {400: OpenApiResponse(description="Invalid input; `fields` names the field"),
          401: OpenApiResponse(description="Sign in: the plan lives on your account"),
          404: OpenApiResponse(description="No study plan yet")}


class StudyPlanApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: s.PlanSerializer, **ERRORS},
                   summary="Your plan from today to the interview: each day's chapters, reviews, new cards and "
                           "practice, and predicted readiness by topic on the day")
    def get(self, request):
        return Response(services.plan_get(user=request.user, now=timezone.now()))

    @extend_schema(request=s.PlanInputSerializer, responses={200: s.PlanSerializer, **ERRORS},
                   summary="Set your interview date and study budget; answers the plan")
    def put(self, request):
        data = s.PlanInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.plan_save(user=request.user, now=timezone.now(), **data.validated_data)
        return Response(services.plan_get(user=request.user, now=timezone.now()))

    @extend_schema(responses={204: None, 401: ERRORS[401]}, summary="Drop your study plan")
    def delete(self, request):
        services.plan_delete(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class StudyPlanCalendarApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="study_plan_calendar", responses={(200, "text/calendar"): OpenApiTypes.STR, **ERRORS},
                   summary="The plan's study days as an iCalendar file (.ics)")
    def get(self, request):
        response = HttpResponse(services.plan_calendar(user=request.user, now=timezone.now()),
                                content_type="text/calendar; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="study-plan.ics"'
        return response
