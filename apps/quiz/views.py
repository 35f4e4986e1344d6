"""Quiz API: the question catalogue and server-side checking, practice/interview sessions, diagnosis, numbers."""

import random
from dataclasses import asdict

from django.db.models import Count, Prefetch, Q
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status, viewsets
from rest_framework.permissions import SAFE_METHODS, AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.cache_keys import body_key, cached_body
from apps.core.conditional import RenderedBody, json_response
from apps.core.pagination import PageNumberPagination, paginated_schema
from apps.core.permissions import IsAuthorOrReadOnly, is_author
from apps.courses.services import chapter_queryset
from apps.glossary.models import Term
from apps.quiz import serializers as s
from apps.quiz import services
from apps.quiz.filters import QuestionFilter
from apps.quiz.investigation import MAX_QUESTIONS
from apps.quiz.models import DiagnosisScenario, NumberToMemorize, Question, SessionMode, Topic

TOKEN_HEADER = OpenApiParameter(
    "X-Practice-Token", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="The session_token of an anonymous session (returned once when it was created)",
)


def _visible_chapters(user):
    return chapter_queryset(user)


def _visible_questions(user):
    return Question.objects.visible_to(user).prefetch_related(
        "topics",
        Prefetch("chapters", queryset=_visible_chapters(user)),
        Prefetch("glossary_terms", queryset=Term.objects.visible_to(user)),
    )


AUTHORING_RESPONSES = {400: None, 401: None, 403: None}


class QuestionViewSet(viewsets.ReadOnlyModelViewSet):
    """Questions with their public choices; answer keys and model answers only come back from check.

    Learners see published questions only (a draft's detail is a 404); authors also see drafts, exactly as learners
    will once published. POST / PATCH / DELETE: authors only; writes take and return the authoring fields."""
    serializer_class = s.QuestionSerializer
    filterset_class = QuestionFilter
    permission_classes = [IsAuthorOrReadOnly]
    lookup_value_regex = r"[0-9]+"

    def get_queryset(self):
        return _visible_questions(self.request.user)

    def list(self, request, *args, **kwargs):
        # Same for every reader but authors (drafts): cached by content version and URL (filters, page, host).
        key = body_key("question-list", is_author(request.user), request.build_absolute_uri())
        return json_response(cached_body(key, lambda: RenderedBody.of(super(QuestionViewSet, self).list(request, *args, **kwargs).data)))

    @extend_schema(request=s.QuestionWriteSerializer, responses={201: s.QuestionAuthoringSerializer, **AUTHORING_RESPONSES})
    def create(self, request):
        data = s.QuestionWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        question = services.question_write(question=None, data=data.validated_data)
        return Response(s.QuestionAuthoringSerializer(services.question_authoring(question)).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.QuestionWriteSerializer,
                   responses={200: s.QuestionAuthoringSerializer, 404: None, **AUTHORING_RESPONSES})
    def partial_update(self, request, pk=None):
        question = get_object_or_404(Question, pk=pk)
        data = s.QuestionWriteSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        question = services.question_write(question=question, data=data.validated_data)
        return Response(s.QuestionAuthoringSerializer(services.question_authoring(question)).data)

    @extend_schema(responses={204: None, 401: None, 403: None, 404: None})
    def destroy(self, request, pk=None):
        services.question_delete(get_object_or_404(Question, pk=pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class QuestionCheckApi(APIView):
    @extend_schema(request=s.CheckInputSerializer, responses={200: s.CheckResultSerializer})
    def post(self, request, pk: int) -> Response:
        question = get_object_or_404(_visible_questions(request.user), pk=pk)
        data = s.CheckInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.question_check(question=question, answer=data.validated_data.get("answer"))
        return Response(s.CheckResultSerializer(result).data)


class TopicListApi(generics.ListAPIView):
    """Topic tags with the number of published questions carrying each."""
    serializer_class = s.TopicSerializer

    def get_queryset(self):
        published = Q(questions__in=Question.objects.published())
        return Topic.objects.annotate(question_count=Count("questions", filter=published)).filter(question_count__gt=0).order_by("slug")


class PracticeSessionListCreateApi(APIView):
    def get_permissions(self):
        # Listing needs an account; starting a session does not (an anonymous session answers with its token).
        return [IsAuthenticated()] if self.request.method in SAFE_METHODS else [AllowAny()]

    @extend_schema(operation_id="practice_sessions_list", responses={200: paginated_schema(s.SessionListSerializer)})
    def get(self, request) -> Response:
        """The signed-in user's own sessions, newest first."""
        queryset = services.practice_session_list(user=request.user)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(queryset, request, view=self)
        return paginator.get_paginated_response(s.SessionListSerializer(page, many=True).data)

    @extend_schema(request=s.SessionCreateSerializer, responses={201: s.SessionCreatedSerializer})
    def post(self, request) -> Response:
        data = s.SessionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        filters = {name: values[name] for name in ("part", "chapter", "topic", "level", "kind") if values.get(name)}
        mode = values["mode"]
        session = services.practice_session_create(
            user=request.user, mode=mode, filters=filters,
            size=values.get("size") or (8 if mode == SessionMode.INTERVIEW else 10),
            seconds_per_question=values.get("seconds_per_question"), rng=random.Random(),
        )
        body = s.SessionSerializer(session).data
        body["session_token"] = None if session.user_id else services.session_token(session)
        return Response(body, status=status.HTTP_201_CREATED)


def _session(request, session_id):
    return services.practice_session_get(session_id=session_id, user=request.user, token=request.headers.get("X-Practice-Token"))


class PracticeSessionDetailApi(APIView):
    @extend_schema(parameters=[TOKEN_HEADER], responses={200: s.SessionSerializer})
    def get(self, request, session_id) -> Response:
        return Response(s.SessionSerializer(_session(request, session_id)).data)


class PracticeAnswerCreateApi(APIView):
    @extend_schema(parameters=[TOKEN_HEADER], request=s.AnswerInputSerializer, responses={201: s.AnswerResultSerializer})
    def post(self, request, session_id) -> Response:
        data = s.AnswerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        recorded, result, answered = services.practice_answer_create(
            session_id=session_id, user=request.user, token=request.headers.get("X-Practice-Token"),
            question_id=values["question"], answer=values.get("answer"),
            self_rating=values.get("self_rating"), duration_ms=values.get("duration_ms"), now=timezone.now(),
        )
        body = {
            **asdict(result),
            "question": recorded.question_id,
            "self_rating": recorded.self_rating,
            "duration_ms": recorded.duration_ms,
            "over_time": services.is_over_time(recorded.session, recorded.duration_ms),
            "answered": answered,
            "remaining": len(recorded.session.question_ids) - answered,
            "finished": answered >= len(recorded.session.question_ids),
        }
        return Response(s.AnswerResultSerializer(body).data, status=status.HTTP_201_CREATED)


class PracticeSummaryApi(APIView):
    @extend_schema(parameters=[TOKEN_HEADER], responses={200: s.SummarySerializer})
    def get(self, request, session_id) -> Response:
        summary = services.practice_summary(session=_session(request, session_id))
        return Response(s.SummarySerializer(summary).data)


class DiagnosisListApi(generics.ListAPIView):
    """Investigation scenarios of every game (or of ``?game=``): symptom, setting, the evidence that may be asked for
    (labels only) and the causes to choose from; never the answer."""
    serializer_class = s.DiagnosisSerializer

    @extend_schema(parameters=[s.DiagnosisFilterSerializer])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        filters = s.DiagnosisFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        chapters = Prefetch("chapters", queryset=_visible_chapters(self.request.user))
        queryset = DiagnosisScenario.objects.visible_to(self.request.user).prefetch_related(chapters)
        if filters.validated_data.get("game"):
            queryset = queryset.filter(game=filters.validated_data["game"])
        return queryset.order_by("slug")


ATTEMPT_TOKEN_HEADER = OpenApiParameter(
    "X-Attempt-Token", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="The token of an anonymous attempt (returned once when it was started)",
)


def _attempt(request, attempt_id):
    return services.attempt_get(attempt_id=attempt_id, user=request.user, token=request.headers.get("X-Attempt-Token"))


class AttemptStartApi(APIView):
    """Starts an investigation of one scenario. Signed in, the attempt is saved to the account (GET
    /diagnosis/attempts/); anonymous, it is kept on no account and reachable only with the token returned here."""

    @extend_schema(request=None, responses={201: s.AttemptCreatedSerializer, 404: None})
    def post(self, request, slug: str) -> Response:
        scenario = get_object_or_404(DiagnosisScenario.objects.visible_to(request.user), slug=slug)
        attempt = services.attempt_start(scenario=scenario, user=request.user)
        attempt.token = None if attempt.user_id else services.attempt_token(attempt)
        return Response(s.AttemptCreatedSerializer(attempt).data, status=status.HTTP_201_CREATED)


class AttemptListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="diagnosis_attempts_list", responses={200: paginated_schema(s.AttemptSerializer)})
    def get(self, request) -> Response:
        """The signed-in user's own attempts, newest first, with their scores."""
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(services.attempt_list(user=request.user), request, view=self)
        return paginator.get_paginated_response(s.AttemptSerializer(page, many=True).data)


class AttemptEvidenceApi(APIView):
    @extend_schema(parameters=[ATTEMPT_TOKEN_HEADER], request=s.AskInputSerializer,
                   responses={200: s.AskResultSerializer, 404: None, 409: None})
    def post(self, request, attempt_id) -> Response:
        """Asks for one piece of evidence (at most five new ones per attempt; asking again for one is free)."""
        attempt = _attempt(request, attempt_id)
        data = s.AskInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        attempt, item = services.attempt_ask(attempt=attempt, key=data.validated_data["evidence"])
        body = {"item": item, "asked": attempt.asked, "remaining": MAX_QUESTIONS - len(attempt.asked)}
        return Response(s.AskResultSerializer(body).data)


class AttemptAnswerApi(APIView):
    @extend_schema(parameters=[ATTEMPT_TOKEN_HEADER], request=s.NameCauseSerializer,
                   responses={200: s.InvestigationResultSerializer, 404: None, 409: None})
    def post(self, request, attempt_id) -> Response:
        """Names the cause: graded, scored and the attempt finished; the reasoning and the telling evidence back."""
        attempt = _attempt(request, attempt_id)
        data = s.NameCauseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.attempt_answer(attempt=attempt, answer=data.validated_data["answer"])
        return Response(s.InvestigationResultSerializer(result).data)


class NumberListApi(generics.ListAPIView):
    serializer_class = s.NumberSerializer

    def get_queryset(self):
        chapters = Prefetch("chapters", queryset=_visible_chapters(self.request.user))
        return NumberToMemorize.objects.visible_to(self.request.user).prefetch_related(chapters)
