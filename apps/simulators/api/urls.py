from django.urls import path

from apps.simulators.api import k8s, views  # noqa: F401  (k8s: its @documented views join ANALYTIC_VIEWS)

urlpatterns = [
    path("models/", views.ModelListApi.as_view(), name="simulator-model-list"),
    path("models/<str:slug>/", views.ModelDetailApi.as_view(), name="simulator-model-detail"),
    path("gpus/", views.GPUListApi.as_view(), name="simulator-gpu-list"),
    path("gpus/<str:slug>/", views.GPUDetailApi.as_view(), name="simulator-gpu-detail"),
    *(path(f"{name}/", view.as_view(), name=f"simulator-{name}") for name, view in views.ANALYTIC_VIEWS.items()),
    path("engine/", views.EngineSimulateApi.as_view(), name="simulator-engine"),
    path("cluster/", views.ClusterSimulateApi.as_view(), name="simulator-cluster"),
    path("sweeps/", views.SweepListCreateApi.as_view(), name="simulator-sweep-list"),
    path("sweeps/<uuid:job_id>/", views.SweepDetailApi.as_view(), name="simulator-sweep-detail"),
    path("sweeps/<uuid:job_id>/status/", views.SweepStatusApi.as_view(), name="simulator-sweep-status"),
    path("sweeps/<uuid:job_id>/cancel/", views.SweepCancelApi.as_view(), name="simulator-sweep-cancel"),
]
