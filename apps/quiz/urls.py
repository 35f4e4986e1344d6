from django.urls import path
from rest_framework.routers import SimpleRouter

from apps.quiz import views

router = SimpleRouter()
router.register("questions", views.QuestionViewSet, basename="question")

urlpatterns = [
    *router.urls,
    path("questions/<int:pk>/check/", views.QuestionCheckApi.as_view(), name="question-check"),
    path("topics/", views.TopicListApi.as_view(), name="topic-list"),
    path("practice/sessions/", views.PracticeSessionListCreateApi.as_view(), name="practice-session-list"),
    path("practice/sessions/<uuid:session_id>/", views.PracticeSessionDetailApi.as_view(), name="practice-session-detail"),
    path("practice/sessions/<uuid:session_id>/answers/", views.PracticeAnswerCreateApi.as_view(), name="practice-answer-create"),
    path("practice/sessions/<uuid:session_id>/summary/", views.PracticeSummaryApi.as_view(), name="practice-summary"),
    path("diagnosis/", views.DiagnosisListApi.as_view(), name="diagnosis-list"),
    path("diagnosis/attempts/", views.AttemptListApi.as_view(), name="diagnosis-attempt-list"),
    path("diagnosis/attempts/<uuid:attempt_id>/evidence/", views.AttemptEvidenceApi.as_view(), name="diagnosis-attempt-evidence"),
    path("diagnosis/attempts/<uuid:attempt_id>/answer/", views.AttemptAnswerApi.as_view(), name="diagnosis-attempt-answer"),
    path("diagnosis/<slug:slug>/attempts/", views.AttemptStartApi.as_view(), name="diagnosis-attempt-start"),
    path("numbers/", views.NumberListApi.as_view(), name="number-list"),
]
