import importlib
import pkgutil

from django.urls import path

from apps.simulators import api
from apps.simulators.api import views

# Every module of this package that declares endpoints routes them with `@documented` when imported (views.py,
# k8s.py): import them all, so a new simulator's module needs no line here.
for module in pkgutil.iter_modules(api.__path__):
    if module.name != "urls":
        importlib.import_module(f"{api.__name__}.{module.name}")

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
    path("engine-jobs/", views.EngineJobListCreateApi.as_view(), name="simulator-engine-job-list"),
    path("engine-jobs/<uuid:job_id>/", views.EngineJobDetailApi.as_view(), name="simulator-engine-job-detail"),
    path("engine-jobs/<uuid:job_id>/cancel/", views.EngineJobCancelApi.as_view(), name="simulator-engine-job-cancel"),
]
