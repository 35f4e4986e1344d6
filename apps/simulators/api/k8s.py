"""Kubernetes-for-inference simulators: the Pending-pod debugger, the quota gates, a GPU node-pool rotation and the
manifest explorer.
Request and response serializers and the views in one module; `@documented` routes each view (api/urls.py imports
this module so the routes exist)."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.simulators.api.outputs import B, F, I, S, many, output
from apps.simulators.api.views import SimulatorApi, documented
from apps.simulators.modeling import k8s, k8s_manifest

MAX_NODES = 100
NAME = {"max_length": 63, "min_length": 1}
LABEL_KEY = {"max_length": 253, "min_length": 1}
LABEL_VALUE = {"max_length": 63, "allow_blank": True}


# The most a manifest may ask for here, in the kit's units (cores, GiB, GPUs).
QUANTITY_MAX = {"cpu": 100_000, "memory": 1_000_000, k8s.GPU: 1024, "pods": 100_000}
QUANTITY_PATTERN = r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"


@extend_schema_field({"oneOf": [{"type": "number", "minimum": 0}, {"type": "string", "pattern": QUANTITY_PATTERN}],
                      "description": 'A Kubernetes quantity: 8, "500m" (CPU), "512Gi" or "64G" (memory)'})
class K8sQuantity(serializers.Field):
    """A quantity as a manifest writes it, read as the API server reads it (k8s.parse_quantity). With a resource,
    the value in the kit's units (cores, GiB, GPUs); without one, the value as given, checked (quota maps parse it
    once they know the key)."""

    def __init__(self, resource: str | None = None, **kwargs):
        self.resource = resource
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, (int, float, str)):
            raise serializers.ValidationError('must be a quantity such as 8, "500m" or "512Gi"')
        try:
            value = k8s.parse_quantity(data, self.resource or "cpu")
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None
        if self.resource is None:
            return data
        name = self.resource.split(".", 1)[-1] if self.resource.startswith(("requests.", "limits.")) else self.resource
        if value > QUANTITY_MAX[name]:
            raise serializers.ValidationError(f"at most {QUANTITY_MAX[name]:,} here")
        return value

    def to_representation(self, value):
        return value


class K8sResourcesInput(serializers.Serializer):
    """requests, limits or allocatable as a manifest names them; a resource left out is not declared."""

    def get_fields(self):
        return {
            "cpu": K8sQuantity("cpu", required=False, help_text='cores: 16, "0.5" or "500m"'),
            "memory": K8sQuantity("memory", required=False, help_text='bytes with a suffix: "128Gi", "64G"'),
            # source: DRF reads a dotted field name as a path into the data
            k8s.GPU: K8sQuantity(k8s.GPU, source="gpu", required=False,
                                 help_text="whole GPUs (the NVIDIA device plugin's name)"),
        }


def _declared(data: dict) -> frozenset[str]:
    """The Kubernetes names of the resources a validated K8sResourcesInput declares."""
    return frozenset(k8s.GPU if name == "gpu" else name for name in data)


# ---------------------------------------------------------------- pending-pod debugger: inputs


class K8sTolerationInput(serializers.Serializer):
    key = serializers.CharField(required=False, allow_blank=True, default="", max_length=253,
                                help_text="Empty with operator Exists tolerates every taint")
    operator = serializers.ChoiceField(choices=["Equal", "Exists"], default="Equal")
    value = serializers.CharField(required=False, allow_blank=True, default="", max_length=63)
    effect = serializers.ChoiceField(choices=["", *k8s.EFFECTS], default="", help_text="Empty: every effect")

    def validate(self, data):
        if data["operator"] == "Exists" and data["value"]:
            raise serializers.ValidationError({"value": ["must be empty when `operator` is 'Exists'"]})
        if data["operator"] == "Equal" and not data["key"]:
            raise serializers.ValidationError({"key": ["operator Equal needs a key"]})
        return data


class K8sRequirementInput(serializers.Serializer):
    key = serializers.CharField(**LABEL_KEY)
    operator = serializers.ChoiceField(choices=k8s.OPERATORS)
    values = serializers.ListField(child=serializers.CharField(**LABEL_VALUE), max_length=50, default=list)

    def validate(self, data):
        if data["operator"] in ("In", "NotIn") and not data["values"]:
            raise serializers.ValidationError({"values": [f"operator {data['operator']} needs at least one value"]})
        if data["operator"] in ("Exists", "DoesNotExist") and data["values"]:
            raise serializers.ValidationError({"values": [f"must be empty for operator {data['operator']}"]})
        return data


class K8sTermInput(serializers.Serializer):
    match_expressions = serializers.ListField(child=K8sRequirementInput(), min_length=1, max_length=20)


class K8sPodInput(serializers.Serializer):
    name = serializers.CharField(default="vllm-0", **NAME)
    namespace = serializers.CharField(default="inference", **NAME)
    container = serializers.CharField(default="vllm", help_text="The container's name (quota messages name it)", **NAME)
    requests = K8sResourcesInput()
    limits = K8sResourcesInput(required=False, allow_null=True, help_text="Omit for no limits")
    node_selector = serializers.DictField(child=serializers.CharField(**LABEL_VALUE), default=dict)
    affinity = serializers.ListField(child=K8sTermInput(), default=list, max_length=10,
                                     help_text="requiredDuringSchedulingIgnoredDuringExecution nodeSelectorTerms (ORed)")
    tolerations = serializers.ListField(child=K8sTolerationInput(), default=list, max_length=20)
    priority = serializers.IntegerField(min_value=-2_147_483_648, max_value=1_000_000_000, default=0)

    def validate_node_selector(self, value):
        if len(value) > 20 or any(not k or len(k) > 253 for k in value):
            raise serializers.ValidationError("at most 20 labels, keys 1–253 characters")
        return value


class K8sTaintInput(serializers.Serializer):
    key = serializers.CharField(**LABEL_KEY)
    value = serializers.CharField(default="", **LABEL_VALUE)
    effect = serializers.ChoiceField(choices=k8s.EFFECTS, default="NoSchedule")


class K8sRunningPodInput(serializers.Serializer):
    name = serializers.CharField(**NAME)
    requests = K8sResourcesInput(default=dict)
    priority = serializers.IntegerField(min_value=-2_147_483_648, max_value=1_000_000_000, default=0)


class K8sNodeInput(serializers.Serializer):
    name = serializers.CharField(**NAME)
    allocatable = K8sResourcesInput()
    labels = serializers.DictField(child=serializers.CharField(**LABEL_VALUE), default=dict)
    taints = serializers.ListField(child=K8sTaintInput(), default=list, max_length=20)
    pods = serializers.ListField(child=K8sRunningPodInput(), default=list, max_length=110)
    max_pods = serializers.IntegerField(min_value=1, max_value=1000, default=110)
    unschedulable = serializers.BooleanField(default=False, help_text="Cordoned")

    def validate_labels(self, value):
        if len(value) > 50 or any(not k or len(k) > 253 for k in value):
            raise serializers.ValidationError("at most 50 labels, keys 1–253 characters")
        return value

    def validate(self, data):
        alloc = data["allocatable"]
        for resource in k8s.RESOURCES:
            used = sum(_resources(p["requests"]).get(resource) for p in data["pods"])
            if used > _resources(alloc).get(resource) + 1e-9:
                raise serializers.ValidationError(
                    {"pods": [f"existing pods request {k8s.fmt_quantity(resource, used)} {resource}, more than the "
                              f"node's allocatable {k8s.fmt_quantity(resource, _resources(alloc).get(resource))}"]})
        return data


class K8sQuotaInput(serializers.Serializer):
    name = serializers.CharField(default="gpu-quota", **NAME)
    hard = serializers.DictField(child=K8sQuantity(), help_text=f"ResourceQuota spec.hard; keys: "
                                 f"{', '.join(k8s.QUOTA_KEYS)}; values as quantities (\"8\", \"500m\", \"512Gi\")")
    used = serializers.DictField(child=K8sQuantity(), default=dict, help_text="ResourceQuota status.used")

    def validate(self, data):
        for name in ("hard", "used"):
            bad = [k for k in data[name] if k not in k8s.QUOTA_KEYS]
            if bad:
                raise serializers.ValidationError(
                    {name: [f"unknown quota key {', '.join(map(repr, bad))}; use {', '.join(k8s.QUOTA_KEYS)}"]})
            errors = {}
            for key, value in data[name].items():
                try:
                    data[name][key] = k8s.parse_quantity(value, key)
                except ValueError as exc:
                    errors[f"{name}.{key}"] = [str(exc)]
            if errors:
                raise serializers.ValidationError(errors)
        if not data["hard"]:
            raise serializers.ValidationError({"hard": ["give at least one limit"]})
        return data


class K8sPendingInput(serializers.Serializer):
    pod = K8sPodInput()
    nodes = serializers.ListField(child=K8sNodeInput(), min_length=1, max_length=MAX_NODES)
    quota = K8sQuotaInput(required=False, allow_null=True, help_text="The namespace's ResourceQuota, if any")

    def validate_nodes(self, nodes):
        names = [n["name"] for n in nodes]
        if len(set(names)) != len(names):
            raise serializers.ValidationError("node names must be unique")
        return nodes


# ---------------------------------------------------------------- pending-pod debugger: output

K8sNodeVerdict = output("K8sNodeVerdict", name=S, fits=B, plugin=S(allow_null=True), reason=S(allow_null=True),
                        reasons=serializers.ListField(child=S()),
                        free=output("K8sFree", cpu=F, memory_gib=F, gpu=F)(),
                        fix=serializers.ListField(child=S()))
K8sPendingOutput = output(
    "K8sPendingOutput", admitted=B, schedules=B, node=S(allow_null=True),
    feasible_nodes=serializers.ListField(child=S()), phase=S, message=S, event=S, nodes=many(K8sNodeVerdict),
    quota=output("K8sQuotaVerdict", name=S, admitted=B, message=S, exceeded=serializers.ListField(child=S()),
                 fix=serializers.ListField(child=S()))(allow_null=True),
    preemption=output("K8sPreemption", node=S, victims=serializers.ListField(child=S()), message=S)(allow_null=True),
    fix=serializers.ListField(child=S(), help_text="The smallest change that gets the pod scheduled"),
    fix_node=S(allow_null=True), derivation=S)


def _resources(data: dict) -> k8s.Resources:
    return k8s.Resources(cpu=data.get("cpu", 0.0), memory=data.get("memory", 0.0), gpu=int(data.get("gpu", 0)))


def _pod(data: dict) -> k8s.PodSpec:
    limits = data.get("limits")
    return k8s.PodSpec(
        name=data["name"], namespace=data["namespace"], container=data["container"],
        requests=_resources(data["requests"]), requests_declared=_declared(data["requests"]),
        limits=_resources(limits) if limits else None, limits_declared=_declared(limits or {}),
        node_selector=dict(data["node_selector"]),
        affinity_terms=tuple(tuple(k8s.Requirement(r["key"], r["operator"], tuple(r["values"]))
                                   for r in term["match_expressions"]) for term in data["affinity"]),
        tolerations=tuple(k8s.Toleration(**t) for t in data["tolerations"]), priority=data["priority"])


def _node(data: dict) -> k8s.Node:
    return k8s.Node(
        name=data["name"], allocatable=_resources(data["allocatable"]), labels=dict(data["labels"]),
        taints=tuple(k8s.Taint(**t) for t in data["taints"]),
        pods=tuple(k8s.RunningPod(p["name"], _resources(p["requests"]), p["priority"]) for p in data["pods"]),
        max_pods=data["max_pods"], unschedulable=data["unschedulable"])


@documented("k8s-pending", K8sPendingInput, K8sPendingOutput,
            "Pending-pod debugger: quota admission, each node's first scheduler reason, the smallest fix")
class K8sPendingApi(SimulatorApi):
    """The pod through ResourceQuota admission, then every node through the scheduler's filters (NodeUnschedulable,
    TaintToleration, NodeAffinity, NodeResourcesFit) with kube-scheduler's own messages."""

    field_names = {"requests.cpu": "pod.requests.cpu", "requests.memory": "pod.requests.memory",
                   "requests.gpu": f"pod.requests.{k8s.GPU}", "nodes": "nodes"}

    def calculate(self, request, data):
        quota = data.get("quota")
        result = k8s.debug_pending(
            _pod(data["pod"]), [_node(n) for n in data["nodes"]],
            k8s.ResourceQuota(quota["name"], dict(quota["hard"]), dict(quota["used"])) if quota else None)
        out = asdict(result)
        for verdict in out["nodes"]:
            free = verdict["free"]
            verdict["free"] = {"cpu": free["cpu"], "memory_gib": free["memory"], "gpu": free[k8s.GPU]}
        return out


# ---------------------------------------------------------------- quota gates


class K8sQuotaGatesInput(serializers.Serializer):
    desired_replicas = serializers.IntegerField(min_value=1, max_value=10_000)
    gpus_per_replica = serializers.IntegerField(min_value=1, max_value=64)
    gpus_per_node = serializers.IntegerField(min_value=1, max_value=64, default=8)
    instance_type = serializers.CharField(max_length=63, default="p5.48xlarge")
    existing_nodes = serializers.IntegerField(min_value=0, max_value=10_000, default=0)
    cloud_gpu_quota = serializers.IntegerField(min_value=0, max_value=1_000_000,
                                               help_text="The account's GPU quota in the region (GPUs)")
    cloud_gpus_in_use = serializers.IntegerField(min_value=0, max_value=1_000_000, default=0,
                                                 help_text="GPUs already counted against it, the existing nodes' too")
    instances_available = serializers.IntegerField(min_value=0, max_value=10_000,
                                                   help_text="Instances the zone can hand out now (stockouts)")
    pool_max_nodes = serializers.IntegerField(min_value=0, max_value=10_000, help_text="Node pool / autoscaler max")
    namespace = serializers.CharField(default="inference", **NAME)
    quota_name = serializers.CharField(default="gpu-quota", **NAME)
    namespace_gpu_quota = serializers.IntegerField(min_value=0, max_value=1_000_000, required=False, allow_null=True,
                                                   help_text="ResourceQuota requests.nvidia.com/gpu; omit for none")
    namespace_gpus_used = serializers.IntegerField(min_value=0, max_value=1_000_000, default=0)
    gpus_used_by_other_pods = serializers.IntegerField(min_value=0, max_value=1_000_000, default=0)

    def validate(self, data):
        quota = data.get("namespace_gpu_quota")
        if quota is not None and data["namespace_gpus_used"] > quota:
            raise serializers.ValidationError({"namespace_gpus_used": ["must be <= namespace_gpu_quota"]})
        return data


K8sGate = output("K8sGate", name=S, limit_replicas=I, passing_replicas=I, stops_here=B, detail=S, message=S, fix=S)
K8sQuotaGatesOutput = output(
    "K8sQuotaGatesOutput", desired_replicas=I, serving_replicas=I, stopped_at=S(allow_null=True), gates=many(K8sGate),
    nodes_available=I, gpus_per_node=I, replicas_per_node=I, stranded_gpus_per_node=I, derivation=S)


@documented("k8s-quota-gates", K8sQuotaGatesInput, K8sQuotaGatesOutput,
            "Quota gates: cloud GPU quota → instances → namespace ResourceQuota → schedulable GPUs")
class K8sQuotaGatesApi(SimulatorApi):
    """Between "want N replicas" and "N serving": each gate passes min(what came in, what it allows)."""

    def calculate(self, request, data):
        return asdict(k8s.quota_gates(**data))


# ---------------------------------------------------------------- node rotation


class K8sRotationInput(serializers.Serializer):
    nodes = serializers.IntegerField(min_value=1, max_value=64)
    gpus_per_node = serializers.IntegerField(min_value=1, max_value=16, default=8)
    gpus_per_replica = serializers.IntegerField(min_value=1, max_value=16)
    replicas = serializers.IntegerField(min_value=1, max_value=512)
    replicas_needed = serializers.IntegerField(min_value=0, max_value=512, help_text="Replicas the traffic needs")
    pdb_min_available = serializers.IntegerField(min_value=0, max_value=512, default=0,
                                                 help_text="PodDisruptionBudget minAvailable (0: no PDB)")
    max_surge = serializers.IntegerField(min_value=0, max_value=64, default=1, help_text="Extra nodes at a time")
    max_unavailable = serializers.IntegerField(min_value=0, max_value=64, default=0,
                                               help_text="Nodes drained before their replacement exists")
    node_provision_s = serializers.FloatField(min_value=0, max_value=86_400, default=300)
    image_pull_s = serializers.FloatField(min_value=0, max_value=86_400, default=120)
    model_download_s = serializers.FloatField(min_value=0, max_value=86_400, default=600)
    model_load_s = serializers.FloatField(min_value=0, max_value=86_400, default=60)
    warmup_s = serializers.FloatField(min_value=0, max_value=86_400, default=30)
    pre_pulled_image = serializers.BooleanField(default=False)
    model_cache = serializers.BooleanField(default=False, help_text="Weights from an in-cluster cache: no download")
    pdb_timeout_s = serializers.FloatField(min_value=0, max_value=86_400, required=False, allow_null=True,
                                           help_text="Force the drain after this long (GKE: 3600); omit to wait")

    def validate(self, data):
        if data["replicas_needed"] > data["replicas"]:
            raise serializers.ValidationError({"replicas_needed": ["must be <= replicas"]})
        if data["gpus_per_replica"] > data["gpus_per_node"]:
            raise serializers.ValidationError({"gpus_per_replica": ["must be <= gpus_per_node"]})
        return data


K8sRotationPoint = output("K8sRotationPoint", t_s=F, serving=I, starting=I, pending=I, old_nodes=I, new_nodes=I,
                          provisioning_nodes=I, event=S)
K8sRotationOption = output("K8sRotationOption", name=S, duration_s=F(allow_null=True), min_serving=I,
                           seconds_below_need=F, replica_seconds_short=F, stuck=B)
K8sRotationOutput = output(
    "K8sRotationOutput", replicas=I, replicas_needed=I, replicas_per_node=I, pod_start_s_new_node=F,
    pod_start_s_old_node=F, duration_s=F(allow_null=True), recovered_s=F(allow_null=True), min_serving=I,
    seconds_below_need=F, replica_seconds_short=F, stuck=B, stuck_reason=S, timeline=many(K8sRotationPoint),
    options=many(K8sRotationOption), derivation=S)


@documented("k8s-rotation", K8sRotationInput, K8sRotationOutput,
            "Node rotation: drain and replace a GPU pool under a PDB; serving replicas vs need over time")
class K8sRotationApi(SimulatorApi):
    """Surge upgrade of a GPU node pool; evictions respect the PodDisruptionBudget; replacement replicas serve after
    image pull + model download + load + warm-up."""

    def calculate(self, request, data):
        return asdict(k8s.node_rotation(**data))


# ---------------------------------------------------------------- manifest explorer


class K8sManifestInput(serializers.Serializer):
    model = serializers.CharField(default="meta-llama/Llama-3.1-8B-Instruct", max_length=200,
                                  help_text="Hugging Face model id written into the args")
    tp = serializers.IntegerField(min_value=1, max_value=64, default=1, help_text="--tensor-parallel-size")
    pp = serializers.IntegerField(min_value=1, max_value=16, default=1, help_text="--pipeline-parallel-size")
    gpus_per_node = serializers.IntegerField(min_value=1, max_value=16, default=8)
    load_s = serializers.FloatField(min_value=1, max_value=86_400, default=600,
                                    help_text="Worst cold start: download, load, compile, CUDA graphs (s)")
    gpu_taint = serializers.CharField(default="nvidia.com/gpu", max_length=253, help_text="The GPU pool's taint key")
    yaml = serializers.CharField(required=False, allow_blank=False, trim_whitespace=False,
                                 max_length=k8s_manifest.MAX_BYTES,
                                 help_text="Edited manifests to annotate and check; omit for the generated ones")

    def validate_model(self, value):
        if any(c.isspace() for c in value):
            raise serializers.ValidationError("a model id has no spaces")
        return value

    def validate(self, data):
        gpus = data["tp"] * data["pp"]
        if gpus > data["gpus_per_node"] and gpus % data["gpus_per_node"]:
            raise serializers.ValidationError(
                {"tp": [f"tp × pp = {gpus} GPUs span nodes, so must be a multiple of gpus_per_node "
                        f"({data['gpus_per_node']})"]})
        return data


K8sManifestNote = output("K8sManifestNote", line=I, field=S, note=S)
K8sManifestFinding = output("K8sManifestFinding", line=I, severity=S, field=S, message=S)
K8sManifestOutput = output("K8sManifestOutput", yaml=S, generated=B, kinds=serializers.ListField(child=S()),
                           annotations=many(K8sManifestNote), findings=many(K8sManifestFinding), derivation=S)


@documented("k8s-manifest", K8sManifestInput, K8sManifestOutput,
            "Manifest explorer: the serving Deployment/LeaderWorkerSet, Service and HPA annotated, edits checked")
class K8sManifestApi(SimulatorApi):
    """Without `yaml`: the manifests the serve builder writes for this shape, annotated. With `yaml`: the learner's
    edit, annotated and checked line by line (bad YAML: 400 on `yaml` naming the line)."""

    def calculate(self, request, data):
        text = data.get("yaml")
        if text is None:
            args = [data["model"], "--tensor-parallel-size", str(data["tp"])]
            if data["pp"] > 1:
                args += ["--pipeline-parallel-size", str(data["pp"])]
            text = k8s_manifest.serving_manifests(
                name="vllm", model_id=data["model"], args=args, tp=data["tp"], pp=data["pp"],
                gpus_per_node=data["gpus_per_node"], load_s=int(data["load_s"]))
        notes = k8s_manifest.annotate(text)
        findings = k8s_manifest.check(text, load_s=data["load_s"], gpu_taint=data["gpu_taint"])
        kinds = k8s_manifest.kinds(text)
        errors = sum(f.severity == "error" for f in findings)
        return {"yaml": text, "generated": data.get("yaml") is None, "kinds": kinds,
                "annotations": [asdict(n) for n in notes], "findings": [asdict(f) for f in findings],
                "derivation": f"{len(kinds)} document(s) ({', '.join(kinds)}); {len(notes)} annotated fields; "
                              f"{errors} error(s) and {len(findings) - errors} warning(s) against a {data['load_s']:g} s "
                              f"load and the {data['gpu_taint']} taint"}
