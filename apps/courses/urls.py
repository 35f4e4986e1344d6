from django.urls import path

from apps.courses import views

urlpatterns = [
    path("parts/", views.PartListApi.as_view(), name="part-list"),
    path("chapters/", views.ChapterListApi.as_view(), name="chapter-list"),
    path("chapters/<slug:slug>/", views.ChapterDetailApi.as_view(), name="chapter-detail"),
    path("chapters/<slug:slug>/progress/", views.ChapterProgressApi.as_view(), name="chapter-progress"),
    path("progress/", views.ProgressApi.as_view(), name="progress"),
    path("progress/merge/", views.ProgressMergeApi.as_view(), name="progress-merge"),
    path("concept-map/", views.ConceptMapApi.as_view(), name="concept-map"),
    path("concept-map/path/", views.ConceptPathApi.as_view(), name="concept-path"),
]
