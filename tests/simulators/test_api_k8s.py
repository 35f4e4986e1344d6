"""k8s-pending, k8s-quota-gates and k8s-rotation endpoints: hand-checked answers and bad input naming the field."""

import pytest
from api_helpers import assert_finite, post

pytestmark = pytest.mark.django_db

GPU_NODE = {"name": "gpu-a", "allocatable": {"cpu": 190, "memory": "1900Gi", "nvidia.com/gpu": 8},
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]}
POD = {"requests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": 2},
       "limits": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": 2}}


def test_pending_pod_names_the_taint_and_the_fix(api_client):
    cpu_node = {"name": "cpu-a", "allocatable": {"cpu": 64, "memory": "256Gi"}}
    d = post(api_client, "k8s-pending", {"pod": POD, "nodes": [GPU_NODE, cpu_node]})
    assert d["message"] == ("0/2 nodes are available: 1 Insufficient nvidia.com/gpu, "
                            "1 node(s) had untolerated taint {nvidia.com/gpu: present}.")
    assert d["fix_node"] == "gpu-a" and "add a toleration for nvidia.com/gpu:NoSchedule" in d["fix"][0]
    assert d["nodes"][1]["free"] == {"cpu": 64, "memory_gib": 256, "gpu": 0}
    assert "FitError" in d["derivation"]
    assert_finite(d)


def test_pending_pod_with_the_toleration_schedules(api_client):
    pod = {**POD, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
    d = post(api_client, "k8s-pending", {"pod": pod, "nodes": [GPU_NODE]})
    assert d["schedules"] and d["node"] == "gpu-a" and d["message"] == "Successfully assigned inference/vllm-0 to gpu-a"


def test_pending_pod_refused_by_the_namespace_quota(api_client):
    quota = {"name": "gpu-quota", "hard": {"requests.nvidia.com/gpu": 8}, "used": {"requests.nvidia.com/gpu": 8}}
    d = post(api_client, "k8s-pending", {"pod": POD, "nodes": [GPU_NODE], "quota": quota})
    assert not d["admitted"] and d["phase"] == "NotCreated"
    assert d["quota"]["message"] == ("exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu=2, "
                                     "used: requests.nvidia.com/gpu=8, limited: requests.nvidia.com/gpu=8")
    assert d["fix"] == ["raise the quota requests.nvidia.com/gpu to 10"]


@pytest.mark.parametrize("body, field", [
    ({"pod": POD, "nodes": []}, "nodes"),
    ({"pod": POD}, "nodes"),
    ({"pod": {"requests": {"nvidia.com/gpu": -1}}, "nodes": [GPU_NODE]}, "pod"),
    ({"pod": {"requests": {"nvidia.com/gpu": 2}, "limits": {"nvidia.com/gpu": 1}}, "nodes": [GPU_NODE]},
     "pod.requests.nvidia.com/gpu"),
    ({"pod": {"requests": {"cpu": 8}, "limits": {"cpu": "4"}}, "nodes": [GPU_NODE]}, "pod.requests.cpu"),
    ({"pod": {"requests": {"nvidia.com/gpu": "500m"}}, "nodes": [GPU_NODE]}, "pod.requests.nvidia.com/gpu"),
    ({"pod": {"requests": {"memory": "512GB"}}, "nodes": [GPU_NODE]}, "pod.requests.memory"),
    ({"pod": {"requests": {"cpu": True}}, "nodes": [GPU_NODE]}, "pod.requests.cpu"),
    ({"pod": {"requests": {"memory_gib": 64}}, "nodes": [GPU_NODE]}, "pod.requests.memory_gib"),
    ({"pod": {"requests": {"gpu": 2}}, "nodes": [GPU_NODE]}, "pod.requests.gpu"),
    ({"pod": POD, "nodes": [GPU_NODE], "quota": {"hard": {"requests.memory": "lots"}}}, "quota.hard.requests.memory"),
    ({"pod": {**POD, "tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}, "nodes": [GPU_NODE]}, "pod"),
    ({"pod": {**POD, "affinity": [{"match_expressions": [{"key": "gpu", "operator": "In"}]}]}, "nodes": [GPU_NODE]},
     "pod"),
    ({"pod": POD, "nodes": [GPU_NODE, GPU_NODE]}, "nodes"),
    ({"pod": POD, "nodes": [{**GPU_NODE, "taints": [{"key": "k", "effect": "Sometimes"}]}]}, "nodes"),
    ({"pod": POD, "nodes": [{**GPU_NODE, "pods": [{"name": "big", "requests": {"nvidia.com/gpu": 9}}]}]}, "nodes"),
    ({"pod": POD, "nodes": [GPU_NODE], "quota": {"hard": {"requests.gpus": 1}}}, "quota"),
])
def test_pending_bad_input(api_client, body, field):
    d = post(api_client, "k8s-pending", body, 400)
    assert any(name == field or name.startswith(field + ".") or name.startswith(field + "[") for name in d["fields"]), d


def test_kubernetes_names_and_quantities_are_read_as_the_api_server_reads_them(api_client):
    """A pod asking for 8 GPUs does not fit a 4-GPU node; "500m" is half a core and "1900Gi" 1,900 GiB."""
    small = {"name": "gpu-small", "allocatable": {"cpu": "96", "memory": "1900Gi", "nvidia.com/gpu": 4}}
    pod = {"requests": {"cpu": "500m", "memory": "512Gi", "nvidia.com/gpu": 8}}
    d = post(api_client, "k8s-pending", {"pod": pod, "nodes": [small]})
    assert not d["schedules"] and d["message"] == "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
    fits = post(api_client, "k8s-pending", {"pod": {"requests": {"cpu": "500m", "nvidia.com/gpu": 4}}, "nodes": [small]})
    assert fits["schedules"]
    # 96 − 0.5 cores and 1,900 GiB free after the pod (all of the node's memory: the pod declared none).
    busy = {**small, "pods": [{"name": "p", "requests": {"cpu": "500m", "memory": "64G", "nvidia.com/gpu": 1}}]}
    free = post(api_client, "k8s-pending", {"pod": {"requests": {"nvidia.com/gpu": 1}}, "nodes": [busy]})["nodes"][0]
    assert free["free"]["cpu"] == pytest.approx(95.5)
    assert free["free"]["memory_gib"] == pytest.approx(1900 - 64e9 / 2**30)  # "64G" is decimal: 59.6 GiB


def test_a_quota_on_requests_cpu_refuses_a_pod_that_declares_no_cpu_request(api_client):
    """Kubernetes' ResourceQuota admission (pkg/quota/v1/evaluator/core/pods.go, Constraints): a quota tracking
    requests.cpu or requests.memory makes every container declare them, named with the container."""
    quota = {"name": "team", "hard": {"requests.cpu": "64", "requests.memory": "512Gi"}}
    bare = {"container": "server", "requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 1}}
    d = post(api_client, "k8s-pending", {"pod": bare, "nodes": [GPU_NODE], "quota": quota})
    assert not d["admitted"] and d["phase"] == "NotCreated"
    assert d["message"] == ('pods "vllm-0" is forbidden: failed quota: team: must specify requests.cpu for: server; '
                            'requests.memory for: server')
    # A limit alone declares the request too (the API server defaults the request to the limit before admission).
    limited = {"requests": {"nvidia.com/gpu": 1}, "limits": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": 1}}
    assert post(api_client, "k8s-pending", {"pod": limited, "nodes": [GPU_NODE], "quota": quota})["admitted"]
    over = {"name": "team", "hard": {"requests.memory": "32Gi"}}
    d = post(api_client, "k8s-pending", {"pod": POD, "nodes": [GPU_NODE], "quota": over})
    assert d["quota"]["message"] == ("exceeded quota: team, requested: requests.memory=64Gi, used: "
                                     "requests.memory=0, limited: requests.memory=32Gi")


def test_quota_gates_stop_at_the_namespace_quota(api_client):
    d = post(api_client, "k8s-quota-gates", {
        "desired_replicas": 8, "gpus_per_replica": 2, "cloud_gpu_quota": 64, "instances_available": 10,
        "pool_max_nodes": 10, "namespace_gpu_quota": 10, "namespace_gpus_used": 4})
    assert d["stopped_at"] == "namespace ResourceQuota" and d["serving_replicas"] == 3  # (10 − 4) // 2
    assert [g["passing_replicas"] for g in d["gates"]] == [8, 8, 3, 3]
    assert "(10 − 4) // 2 = 3" in d["derivation"]


@pytest.mark.parametrize("body, field", [
    ({"gpus_per_replica": 2, "cloud_gpu_quota": 8, "instances_available": 1, "pool_max_nodes": 1}, "desired_replicas"),
    ({"desired_replicas": 0, "gpus_per_replica": 2, "cloud_gpu_quota": 8, "instances_available": 1, "pool_max_nodes": 1},
     "desired_replicas"),
    ({"desired_replicas": 1, "gpus_per_replica": 16, "cloud_gpu_quota": 8, "instances_available": 1,
      "pool_max_nodes": 1}, "gpus_per_replica"),
    ({"desired_replicas": 1, "gpus_per_replica": 1, "cloud_gpu_quota": 8, "cloud_gpus_in_use": 9,
      "instances_available": 1, "pool_max_nodes": 1}, "cloud_gpus_in_use"),
    ({"desired_replicas": 1, "gpus_per_replica": 1, "cloud_gpu_quota": 8, "instances_available": 1,
      "pool_max_nodes": 1, "namespace_gpu_quota": 2, "namespace_gpus_used": 3}, "namespace_gpus_used"),
    ({"desired_replicas": 1, "gpus_per_replica": 1, "cloud_gpu_quota": 8, "instances_available": 1,
      "pool_max_nodes": 1, "gpus_used_by_other_pods": 9}, "gpus_used_by_other_pods"),
])
def test_quota_gates_bad_input(api_client, body, field):
    assert field in post(api_client, "k8s-quota-gates", body, 400)["fields"]


def test_rotation_timeline(api_client):
    d = post(api_client, "k8s-rotation", {"nodes": 4, "gpus_per_replica": 2, "replicas": 16, "replicas_needed": 12,
                                          "pdb_min_available": 12})
    assert d["min_serving"] == 12 and d["duration_s"] == 2730 and d["recovered_s"] == 3540  # 300 + 3·810, + 810
    assert d["timeline"][0]["serving"] == 16 and d["timeline"][-1]["serving"] == 16
    assert [o["name"] for o in d["options"]] == ["as configured", "max_surge 2", "pre-pulled image", "model cache",
                                                 "all of these"]
    assert_finite(d)


def test_rotation_stuck_on_the_pdb_is_an_answer_not_an_error(api_client):
    d = post(api_client, "k8s-rotation", {"nodes": 2, "gpus_per_replica": 8, "replicas": 2, "replicas_needed": 2,
                                          "pdb_min_available": 2, "max_surge": 0, "max_unavailable": 1})
    assert d["stuck"] and d["duration_s"] is None and "disruption budget" in d["stuck_reason"]


@pytest.mark.parametrize("body, field", [
    ({"nodes": 0, "gpus_per_replica": 1, "replicas": 1, "replicas_needed": 1}, "nodes"),
    ({"nodes": 1, "gpus_per_replica": 1, "replicas": 9, "replicas_needed": 1}, "replicas"),
    ({"nodes": 1, "gpus_per_replica": 1, "replicas": 2, "replicas_needed": 3}, "replicas_needed"),
    ({"nodes": 1, "gpus_per_replica": 9, "replicas": 1, "replicas_needed": 1}, "gpus_per_replica"),
    ({"nodes": 1, "gpus_per_replica": 1, "replicas": 1, "replicas_needed": 1, "max_surge": 0}, "max_surge"),
    ({"nodes": 1, "gpus_per_replica": 1, "replicas": 1, "replicas_needed": 1, "pdb_min_available": 2},
     "pdb_min_available"),
    ({"nodes": 1, "gpus_per_replica": 1, "replicas": 1, "replicas_needed": 1, "model_load_s": -1}, "model_load_s"),
])
def test_rotation_bad_input(api_client, body, field):
    assert field in post(api_client, "k8s-rotation", body, 400)["fields"]
