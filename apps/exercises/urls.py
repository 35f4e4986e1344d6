from django.urls import path

from apps.exercises import views

urlpatterns = [
    path("design-exercises/", views.ExerciseListApi.as_view(), name="design-exercise-list"),
    path("design-exercises/<slug:slug>/", views.ExerciseDetailApi.as_view(), name="design-exercise-detail"),
    path("design-exercises/<slug:slug>/attempts/", views.AttemptListApi.as_view(), name="design-exercise-attempts"),
    path("design-exercises/<slug:slug>/attempts/<int:attempt_id>/", views.AttemptDetailApi.as_view(),
         name="design-exercise-attempt"),
]
