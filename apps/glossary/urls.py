from django.urls import path

from apps.glossary import views

urlpatterns = [
    path("glossary/", views.TermListApi.as_view(), name="term-list"),
    path("glossary/<slug:slug>/", views.TermDetailApi.as_view(), name="term-detail"),
]
