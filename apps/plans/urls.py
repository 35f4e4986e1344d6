from django.urls import path

from apps.plans import views

urlpatterns = [
    path("study-plan/", views.StudyPlanApi.as_view(), name="study-plan"),
    path("study-plan/calendar.ics", views.StudyPlanCalendarApi.as_view(), name="study-plan-calendar"),
]
