"""Kubernetes-for-inference models, checked against hand derivations and kube-scheduler's own messages."""

import pytest

from apps.simulators.modeling.errors import ModelInputError
from apps.simulators.modeling.k8s import (
    Node,
    PodSpec,
    Requirement,
    ResourceQuota,
    Resources,
    RunningPod,
    Taint,
    Toleration,
    debug_pending,
    node_rotation,
    quota_gates,
)

GPU_TAINT = Taint("nvidia.com/gpu", "present", "NoSchedule")
TWO_GPUS = Resources(cpu=8, memory=64, gpu=2)


def gpu_node(name, gpus=8, **kw):
    return Node(name, Resources(cpu=190, memory=1900, gpu=gpus), **kw)


def pod(**kw):
    return PodSpec(name="vllm-0", namespace="inference", requests=TWO_GPUS, limits=TWO_GPUS, **kw)


# ---------------------------------------------------------------- each scheduling reason


def test_untolerated_taint_and_insufficient_gpu_make_the_fit_error_sorted_by_count_then_reason():
    nodes = [gpu_node("gpu-a", taints=(GPU_TAINT,)), gpu_node("gpu-b", taints=(GPU_TAINT,)), gpu_node("gpu-c", gpus=1)]
    r = debug_pending(pod(), nodes)
    assert not r.schedules and r.phase == "Pending"
    # "1 Insufficient…" sorts before "2 node(s)…": the scheduler sorts the "<count> <reason>" strings.
    assert r.message == ("0/3 nodes are available: 1 Insufficient nvidia.com/gpu, "
                         "2 node(s) had untolerated taint {nvidia.com/gpu: present}.")
    assert r.event.startswith("Warning  FailedScheduling  default-scheduler  0/3 nodes")
    assert [v.reason for v in r.nodes] == ["node(s) had untolerated taint {nvidia.com/gpu: present}"] * 2 + [
        "Insufficient nvidia.com/gpu"]
    # One toleration on the pod beats freeing GPUs on gpu-c.
    assert r.fix_node == "gpu-a"
    assert r.fix == ["add a toleration for nvidia.com/gpu:NoSchedule (key: nvidia.com/gpu, operator: Exists, "
                     "effect: NoSchedule)"]


def test_the_toleration_schedules_it_on_the_least_allocated_node():
    nodes = [gpu_node("gpu-a", taints=(GPU_TAINT,), pods=(RunningPod("other", Resources(gpu=4)),)),
             gpu_node("gpu-b", taints=(GPU_TAINT,))]
    r = debug_pending(pod(tolerations=(Toleration("nvidia.com/gpu", "Exists", effect="NoSchedule"),)), nodes)
    assert r.schedules and r.feasible_nodes == ["gpu-a", "gpu-b"] and r.node == "gpu-b"  # 8 free beats 4
    assert r.message == "Successfully assigned inference/vllm-0 to gpu-b"


def test_prefer_no_schedule_taints_do_not_filter_and_equal_tolerations_need_the_value():
    soft = gpu_node("soft", taints=(Taint("spot", "true", "PreferNoSchedule"),))
    assert debug_pending(pod(), [soft]).schedules
    hard = gpu_node("hard", taints=(Taint("dedicated", "llm", "NoSchedule"),))
    wrong = pod(tolerations=(Toleration("dedicated", "Equal", "batch"),))
    assert debug_pending(wrong, [hard]).message == "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: llm}."
    assert debug_pending(pod(tolerations=(Toleration("dedicated", "Equal", "llm"),)), [hard]).schedules


def test_node_selector_and_required_affinity_in_notin():
    h100 = gpu_node("h100", labels={"gpu": "h100"})
    a100 = gpu_node("a100", labels={"gpu": "a100"})
    r = debug_pending(pod(node_selector={"gpu": "h200"}), [h100, a100])
    assert r.message == "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
    assert all(v.plugin == "NodeAffinity" for v in r.nodes)
    not_a100 = (Requirement("gpu", "NotIn", ("a100",)),)
    r = debug_pending(pod(affinity_terms=(not_a100,)), [h100, a100])
    assert r.schedules and r.feasible_nodes == ["h100"]
    # Terms are ORed: either In term lets h100 through.
    terms = ((Requirement("gpu", "In", ("b200",)),), (Requirement("gpu", "In", ("h100", "h200")),))
    assert debug_pending(pod(affinity_terms=terms), [h100, a100]).feasible_nodes == ["h100"]


def test_taints_are_checked_before_affinity_and_affinity_before_resources():
    node = gpu_node("x", gpus=1, labels={"gpu": "a100"}, taints=(GPU_TAINT,))
    assert debug_pending(pod(node_selector={"gpu": "h100"}), [node]).nodes[0].plugin == "TaintToleration"
    tolerant = pod(node_selector={"gpu": "h100"}, tolerations=(Toleration(operator="Exists"),))
    assert debug_pending(tolerant, [node]).nodes[0].plugin == "NodeAffinity"


def test_resource_fit_lists_every_short_resource_and_counts_each():
    small = Node("small", Resources(cpu=4, memory=32, gpu=1))
    r = debug_pending(pod(), [small])
    assert r.nodes[0].reasons == ["Insufficient cpu", "Insufficient memory", "Insufficient nvidia.com/gpu"]
    assert r.message == ("0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
                         "1 Insufficient nvidia.com/gpu.")
    # Free = allocatable − requests of the pods already there: 8 − 7 = 1 GPU → request ≤ 1 (cpu/memory fixes first).
    busy = gpu_node("busy", pods=(RunningPod("train", Resources(cpu=10, memory=100, gpu=7)),))
    r = debug_pending(pod(), [busy])
    assert r.nodes[0].reasons == ["Insufficient nvidia.com/gpu"] and r.nodes[0].free["nvidia.com/gpu"] == 1
    assert r.fix == ["request ≤ 1 GPUs (requests and limits of nvidia.com/gpu; busy has 1 free)"]


def test_cordoned_node_and_too_many_pods():
    r = debug_pending(pod(), [gpu_node("old", unschedulable=True), gpu_node("full", max_pods=1,
                                                                            pods=(RunningPod("p", Resources()),))])
    assert r.message == "0/2 nodes are available: 1 Too many pods, 1 node(s) were unschedulable."


def test_higher_priority_preempts_the_fewest_lower_priority_pods():
    node = gpu_node("gpu-a", pods=(RunningPod("batch-1", Resources(gpu=4), priority=0),
                                   RunningPod("batch-2", Resources(gpu=4), priority=0)))
    low = debug_pending(pod(priority=0), [node])
    assert low.preemption is None and low.message == "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
    high = debug_pending(pod(priority=1000), [node])
    assert high.preemption is not None and high.preemption.victims == ["batch-1"]  # 4 freed ≥ 2 needed


def test_gpu_limit_without_request_defaults_the_request_and_mismatch_is_refused():
    r = debug_pending(PodSpec(requests=Resources(), limits=Resources(gpu=4)), [gpu_node("g", gpus=2)])
    assert r.nodes[0].reason == "Insufficient nvidia.com/gpu"
    with pytest.raises(ModelInputError) as err:
        debug_pending(PodSpec(requests=Resources(gpu=2), limits=Resources(gpu=1)), [gpu_node("g")])
    assert err.value.field == "requests.gpu" and "must be equal to nvidia.com/gpu limit of 1" in err.value.message


# ---------------------------------------------------------------- quota admission


def test_exceeded_quota_message_is_the_api_servers_and_the_fix_raises_it():
    quota = ResourceQuota("gpu-quota", hard={"requests.nvidia.com/gpu": 8}, used={"requests.nvidia.com/gpu": 7})
    r = debug_pending(pod(), [gpu_node("g")], quota)
    assert not r.admitted and r.phase == "NotCreated" and r.nodes == []
    assert r.message == ('pods "vllm-0" is forbidden: exceeded quota: gpu-quota, requested: '
                         "requests.nvidia.com/gpu=2, used: requests.nvidia.com/gpu=7, limited: requests.nvidia.com/gpu=8")
    # used 7 + 2 = 9 > 8: raise it to 9, or ask for the 1 GPU left.
    assert r.fix == ["raise the quota requests.nvidia.com/gpu to 9, or request ≤ 1"]
    assert r.event.startswith("Warning  FailedCreate  replicaset-controller  Error creating: pods")


def test_quota_prints_cpu_and_memory_as_quantities_and_lists_keys_sorted():
    quota = ResourceQuota("team", hard={"requests.memory": 64.5, "requests.cpu": 8.5},
                          used={"requests.memory": 60, "requests.cpu": 4})
    r = debug_pending(pod(), [gpu_node("g")], quota)
    assert r.quota["message"] == ("exceeded quota: team, requested: requests.cpu=8,requests.memory=64Gi, "
                                  "used: requests.cpu=4,requests.memory=60Gi, limited: requests.cpu=8500m,"
                                  "requests.memory=66048Mi")


def test_a_quota_on_limits_requires_the_pod_to_set_them():
    quota = ResourceQuota("team", hard={"limits.memory": 100})
    r = debug_pending(PodSpec(requests=Resources(gpu=1), limits=Resources(gpu=1)), [gpu_node("g")], quota)
    assert r.message == 'pods "vllm-0" is forbidden: failed quota: team: must specify limits.memory for: vllm'


# ---------------------------------------------------------------- quota gates


def gates(**kw):
    base = dict(desired_replicas=8, gpus_per_replica=2, gpus_per_node=8, existing_nodes=0, cloud_gpu_quota=64,
                cloud_gpus_in_use=0, instances_available=10, pool_max_nodes=10)
    return quota_gates(**{**base, **kw})


def test_every_gate_passes_when_nothing_limits():
    r = gates()
    assert r.serving_replicas == 8 and r.stopped_at is None and r.replicas_per_node == 4


def test_cloud_quota_stops_first():
    r = gates(existing_nodes=1, cloud_gpu_quota=16, cloud_gpus_in_use=8)
    # (16 − 8) // 8 = 1 more node + 1 existing = 2 nodes × 4 replicas = 8: passes exactly.
    assert r.gates[0].limit_replicas == 8 and r.serving_replicas == 8
    r = gates(desired_replicas=10, existing_nodes=1, cloud_gpu_quota=16, cloud_gpus_in_use=8)
    assert r.stopped_at == "cloud GPU quota" and r.serving_replicas == 8
    assert "quota increase to 24 GPUs" in r.gates[0].fix  # 8 in use + 2 more nodes × 8 (3 needed, 1 exists)


def test_instance_availability_stops_when_the_zone_is_out():
    r = gates(instances_available=1)  # 1 node × 4 replicas
    assert r.stopped_at == "instance availability" and r.serving_replicas == 4
    assert [g.passing_replicas for g in r.gates] == [8, 4, 4, 4]


def test_namespace_resource_quota_stops_admission():
    r = gates(namespace_gpu_quota=10, namespace_gpus_used=4)  # (10 − 4) // 2 = 3 replicas
    assert r.stopped_at == "namespace ResourceQuota" and r.serving_replicas == 3
    assert "exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu=2, used: requests.nvidia.com/gpu=10" in r.gates[2].message


def test_schedulable_gpus_strand_a_gpu_per_node_with_3_gpu_replicas():
    # 8 // 3 = 2 replicas per node, 2 GPUs stranded; 3 nodes hold 6, not 8.
    r = gates(gpus_per_replica=3, instances_available=3)
    assert r.replicas_per_node == 2 and r.stranded_gpus_per_node == 2
    assert r.stopped_at == "instance availability" and r.serving_replicas == 6
    r = gates(instances_available=4, pool_max_nodes=4, gpus_used_by_other_pods=20)
    # 20 = 2 full nodes + 4 GPUs: (4 − 2 − 1) × 4 + (8 − 4) // 2 = 6 placeable.
    assert r.stopped_at == "schedulable GPUs" and r.serving_replicas == 6


def test_gates_bad_input():
    with pytest.raises(ModelInputError) as err:
        gates(gpus_per_replica=16)
    assert err.value.field == "gpus_per_replica"


# ---------------------------------------------------------------- rotation timeline


ROTATION = dict(nodes=4, gpus_per_node=8, gpus_per_replica=2, replicas=16, replicas_needed=12, node_provision_s=300,
                image_pull_s=120, model_download_s=600, model_load_s=60, warmup_s=30)


def test_surge_rotation_under_a_pdb_never_dips_below_min_available():
    r = node_rotation(**ROTATION, pdb_min_available=12, max_surge=1, max_unavailable=0)
    # Fresh-node start = 120 + 600 + 60 + 30 = 810 s. new-1 Ready at 300; PDB allows 16 − 12 = 4 evictions, so old-1
    # drains at once; its 4 replicas serve at 300 + 810 = 1110. Each later drain waits for the previous 4 to be Ready:
    # old-2 at 1110, old-3 at 1920, old-4 at 2730 (= 300 + 3 × 810); the last 4 serve at 2730 + 810 = 3540.
    assert r.pod_start_s_new_node == 810 and r.pod_start_s_old_node == 690
    assert r.min_serving == 12 and r.seconds_below_need == 0
    assert r.duration_s == 2730 and r.recovered_s == 3540
    assert [(p.t_s, p.serving) for p in r.timeline] == [
        (0, 16), (300, 12), (600, 12), (1110, 12), (1410, 12), (1920, 12), (2220, 12), (2730, 12), (3540, 16)]


def test_no_pdb_and_max_unavailable_drops_serving_to_zero():
    r = node_rotation(**{**ROTATION, "replicas_needed": 14}, pdb_min_available=0, max_surge=0, max_unavailable=1)
    # Old nodes go at 0, 300, 600, 900 (each waits only for the previous replacement node); replicas are Ready
    # 810 s after their node: 1110, 1410, 1710, 2010. Serving 12, 8, 4, 0, then 4, 8, 12, 16.
    assert r.min_serving == 0 and r.recovered_s == 2010
    assert r.seconds_below_need == 2010
    # (14−12)·300 + (14−8)·300 + (14−4)·300 + 14·210 + 10·90 + 10·210 + 6·300 + 2·300 = 13,740 replica-seconds.
    assert r.replica_seconds_short == 13740
    options = {o.name: o for o in r.options}
    assert options["model cache"].min_serving > r.min_serving  # 210 s starts instead of 810
    assert options["all of these"].replica_seconds_short < options["model cache"].replica_seconds_short


def test_a_pdb_that_allows_no_disruption_blocks_the_drain():
    r = node_rotation(**ROTATION, pdb_min_available=16, max_surge=0, max_unavailable=1)
    assert r.stuck and r.duration_s is None
    assert "Cannot evict pod as it would violate the pod's disruption budget" in r.stuck_reason
    forced = node_rotation(**ROTATION, pdb_min_available=16, max_surge=0, max_unavailable=1, pdb_timeout_s=3600)
    assert not forced.stuck and forced.min_serving < 16


def test_rotation_bad_input():
    with pytest.raises(ModelInputError) as err:
        node_rotation(**{**ROTATION, "replicas": 17}, pdb_min_available=0, max_surge=1, max_unavailable=0)
    assert err.value.field == "replicas"
    with pytest.raises(ModelInputError) as err:
        node_rotation(**ROTATION, pdb_min_available=0, max_surge=0, max_unavailable=0)
    assert err.value.field == "max_surge"
