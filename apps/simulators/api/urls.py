from django.urls import path

from apps.simulators.api import views

urlpatterns = [
    path("models/", views.ModelListApi.as_view(), name="simulator-model-list"),
    path("models/<str:slug>/", views.ModelDetailApi.as_view(), name="simulator-model-detail"),
    path("gpus/", views.GPUListApi.as_view(), name="simulator-gpu-list"),
    path("gpus/<str:slug>/", views.GPUDetailApi.as_view(), name="simulator-gpu-detail"),
    path("kv-cache/", views.KVCacheApi.as_view(), name="simulator-kv-cache"),
    path("fit/", views.FitApi.as_view(), name="simulator-fit"),
    path("step-time/", views.StepTimeApi.as_view(), name="simulator-step-time"),
    path("throughput-latency/", views.ThroughputLatencyApi.as_view(), name="simulator-throughput-latency"),
    path("capacity/", views.CapacityApi.as_view(), name="simulator-capacity"),
    path("speculative/", views.SpeculativeApi.as_view(), name="simulator-speculative"),
    path("collectives/", views.CollectivesApi.as_view(), name="simulator-collectives"),
    path("paged-kv/", views.PagedKVApi.as_view(), name="simulator-paged-kv"),
    path("prefix-cache/", views.PrefixCacheApi.as_view(), name="simulator-prefix-cache"),
    path("moe/", views.MoEApi.as_view(), name="simulator-moe"),
    path("request-walk/", views.RequestWalkApi.as_view(), name="simulator-request-walk"),
    path("serve-config/", views.ServeConfigApi.as_view(), name="simulator-serve-config"),
    path("engine/", views.EngineSimulateApi.as_view(), name="simulator-engine"),
    path("cluster/", views.ClusterSimulateApi.as_view(), name="simulator-cluster"),
    path("sweeps/", views.SweepListCreateApi.as_view(), name="simulator-sweep-list"),
    path("sweeps/<uuid:job_id>/", views.SweepDetailApi.as_view(), name="simulator-sweep-detail"),
    path("sweeps/<uuid:job_id>/cancel/", views.SweepCancelApi.as_view(), name="simulator-sweep-cancel"),
]
