from django.urls import path

from apps.simulators import engine_views as views

urlpatterns = [
    path("engine/", views.EngineSimulateApi.as_view(), name="simulator-engine"),
    path("cluster/", views.ClusterSimulateApi.as_view(), name="simulator-cluster"),
    path("sweeps/", views.SweepListCreateApi.as_view(), name="simulator-sweep-list"),
    path("sweeps/<uuid:job_id>/", views.SweepDetailApi.as_view(), name="simulator-sweep-detail"),
    path("sweeps/<uuid:job_id>/cancel/", views.SweepCancelApi.as_view(), name="simulator-sweep-cancel"),
]
