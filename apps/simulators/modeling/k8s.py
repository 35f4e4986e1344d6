"""Kubernetes for inference: why a GPU pod is Pending, where "N replicas" stops on the way to "N serving", and the
serving-capacity dip of rotating a GPU node pool.

Pure Python (no Django). The scheduler's and the API server's own messages are reproduced as kube-scheduler and the
ResourceQuota admission plugin phrase them:

- NodeUnschedulable: "node(s) were unschedulable"
- TaintToleration:   "node(s) had untolerated taint {key: value}"   (only NoSchedule / NoExecute taints filter)
- NodeAffinity:      "node(s) didn't match Pod's node affinity/selector"
- NodeResourcesFit:  "Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient nvidia.com/gpu"
- the FitError:      "0/3 nodes are available: <count> <reason>, ..." with the "<count> <reason>" strings sorted
- ResourceQuota:     "exceeded quota: <name>, requested: <k>=<v>, used: <k>=<v>, limited: <k>=<v>", and a pod
                     that declares no request or limit a quota on cpu or memory tracks: "failed quota: <name>: must
                     specify <key> for: <container>" (Kubernetes pkg/quota/v1/evaluator/core/pods.go, Constraints)

Quantities are read as the API server reads them ("500m" CPU, "512Gi" or "64G" memory; parse_quantity).

Per node, filters run in the default profile's order and stop at the first plugin that rejects the node; the resource
fit plugin reports every resource it is short of.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any

from .errors import ModelInputError

GPU = "nvidia.com/gpu"
RESOURCES = ("cpu", "memory", GPU)
QUOTA_KEYS = ("pods", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory", f"requests.{GPU}")
FILTERING_EFFECTS = ("NoSchedule", "NoExecute")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
EPS = 1e-9


# ---------------------------------------------------------------- quantities, read and printed as Kubernetes does

# k8s.io/apimachinery/pkg/api/resource: a signed decimal number, then a binary suffix (Ki … Ei), a decimal suffix
# (n u m "" k M G T P E) or a decimal exponent (e3, E-2).
QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$")
SUFFIX = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60, "n": 1e-9, "u": 1e-6,
          "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
GIB = 2**30


def parse_quantity(value: int | float | str, resource: str) -> float:
    """A Kubernetes quantity in the kit's units: CPU in cores ("500m" → 0.5), memory in GiB ("512Gi" → 512, "64G" →
    59.6, a bare 1024 is bytes), GPUs and pods as whole numbers (extended resources cannot be fractional).
    ValueError says why not."""
    if isinstance(value, bool):
        raise ValueError("must be a quantity such as 8, \"500m\" or \"512Gi\"")
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        match = QUANTITY.match(value.strip())
        if match is None:
            raise ValueError(f"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*"
                             f"[-+]?[0-9]*)$' (Kubernetes' own rule), not {value[:40]!r}")
        digits, suffix = match.groups()
        scale = float(f"1{suffix}") if suffix and suffix[0] in "eE" else SUFFIX.get(suffix or "", 1.0)
        number = float(digits) * scale
    if not math.isfinite(number) or number < 0:
        raise ValueError("must be greater than or equal to 0")
    name = resource.split(".", 1)[1] if resource.startswith(("requests.", "limits.")) else resource
    if name == "memory":
        return number / GIB  # bytes, as the API server reads a bare number of memory
    if name in (GPU, "pods") and number != int(number):
        raise ValueError("must be an integer")
    return number


def fmt_cpu(cores: float) -> str:
    """4 → "4", 0.5 → "500m" (Kubernetes CPU quantities)."""
    milli = round(cores * 1000)
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def fmt_memory(gib: float) -> str:
    """64 → "64Gi", 0.5 → "512Mi", 0 → "0" (as kubectl prints a zero quantity)."""
    mib = round(gib * 1024)
    if mib == 0:
        return "0"
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"


def fmt_quantity(resource: str, value: float) -> str:
    name = resource.split(".", 1)[1] if resource.startswith(("requests.", "limits.")) else resource
    if name == "cpu":
        return fmt_cpu(value)
    if name == "memory":
        return fmt_memory(value)
    return str(round(value))


def pretty_resources(values: dict[str, float]) -> str:
    """The quota plugin's prettyPrint: key=value pairs sorted by key, joined by commas."""
    return ",".join(f"{key}={fmt_quantity(key, values[key])}" for key in sorted(values))


# ---------------------------------------------------------------- objects


@dataclass(frozen=True)
class Taint:
    key: str
    value: str = ""
    effect: str = "NoSchedule"


@dataclass(frozen=True)
class Toleration:
    key: str = ""  # "" with operator Exists tolerates every taint
    operator: str = "Equal"
    value: str = ""
    effect: str = ""  # "" tolerates every effect

    def tolerates(self, taint: Taint) -> bool:
        if self.effect and self.effect != taint.effect:
            return False
        if self.operator == "Exists":
            return not self.key or self.key == taint.key
        return self.key == taint.key and self.value == taint.value


@dataclass(frozen=True)
class Requirement:
    """One matchExpression of a required node-affinity term."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        if self.operator == "In":
            return self.key in labels and labels[self.key] in self.values
        if self.operator == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if self.operator == "Exists":
            return self.key in labels
        return self.key not in labels  # DoesNotExist


@dataclass(frozen=True)
class Resources:
    cpu: float = 0.0  # cores
    memory: float = 0.0  # GiB
    gpu: int = 0

    def get(self, resource: str) -> float:
        return {"cpu": self.cpu, "memory": self.memory, GPU: self.gpu}[resource]


@dataclass(frozen=True)
class RunningPod:
    name: str
    requests: Resources
    priority: int = 0


@dataclass(frozen=True)
class Node:
    name: str
    allocatable: Resources
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    pods: tuple[RunningPod, ...] = ()
    max_pods: int = 110
    unschedulable: bool = False

    def requested(self, resource: str) -> float:
        return sum(p.requests.get(resource) for p in self.pods)

    def free(self, resource: str) -> float:
        return self.allocatable.get(resource) - self.requested(resource)


@dataclass(frozen=True)
class PodSpec:
    name: str = "vllm-0"
    namespace: str = "default"
    requests: Resources = Resources()
    limits: Resources | None = None  # None: no limits set (GPU limits default the GPU request, and vice versa)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity_terms: tuple[tuple[Requirement, ...], ...] = ()  # OR of terms, AND inside a term
    tolerations: tuple[Toleration, ...] = ()
    priority: int = 0
    container: str = "vllm"
    # The resources the manifest names under requests and under limits; None: those with a non-zero amount.
    requests_declared: frozenset[str] | None = None
    limits_declared: frozenset[str] | None = None


@dataclass(frozen=True)
class ResourceQuota:
    name: str
    hard: dict[str, float]
    used: dict[str, float] = field(default_factory=dict)


# ---------------------------------------------------------------- the pending-pod debugger


@dataclass
class NodeVerdict:
    name: str
    fits: bool
    plugin: str | None  # the filter plugin that rejected the node
    reason: str | None  # its first reason
    reasons: list[str]
    free: dict[str, float]
    fix: list[str]  # the changes that would make this node fit the pod


@dataclass
class Preemption:
    node: str
    victims: list[str]
    message: str


@dataclass
class PendingResult:
    admitted: bool  # passed the namespace ResourceQuota (the pod object exists)
    schedules: bool
    node: str | None
    feasible_nodes: list[str]
    phase: str  # "Running" (bound), "Pending", or "NotCreated" (refused at admission)
    message: str
    event: str  # as `kubectl describe` / `kubectl get events` shows it
    nodes: list[NodeVerdict]
    quota: dict | None
    preemption: Preemption | None
    fix: list[str]  # the smallest change that gets the pod scheduled
    fix_node: str | None
    derivation: str


def _pod_limits(pod: PodSpec) -> Resources:
    return pod.limits if pod.limits is not None else Resources()


def validate_pod(pod: PodSpec) -> None:
    """What the API server refuses before quota or scheduling (its own validation messages)."""
    limits = pod.limits
    for resource, name in (("cpu", "cpu"), ("memory", "memory")):
        request = pod.requests.get(resource)
        if request < 0:
            raise ModelInputError(f"requests.{name}", "must be >= 0")
        if limits is not None and limits.get(resource) and request > limits.get(resource) + EPS:
            raise ModelInputError(f"requests.{name}", f"must be less than or equal to {name} limit of "
                                                       f"{fmt_quantity(name, limits.get(resource))}")
    if limits is not None and limits.gpu != pod.requests.gpu and pod.requests.gpu and limits.gpu:
        raise ModelInputError("requests.gpu", f"must be equal to {GPU} limit of {limits.gpu} "
                                              "(extended resources cannot be overcommitted)")


def effective_requests(pod: PodSpec) -> Resources:
    """A GPU limit without a request sets the request (extended resources: request == limit)."""
    limits = _pod_limits(pod)
    gpu = pod.requests.gpu or limits.gpu
    cpu = pod.requests.cpu if pod.requests.cpu or pod.limits is None else limits.cpu
    memory = pod.requests.memory if pod.requests.memory or pod.limits is None else limits.memory
    return Resources(cpu=cpu, memory=memory, gpu=gpu)


# A quota on any of these makes every container declare it (Kubernetes calls this "a mistake" it keeps for
# compatibility; GPUs and other extended resources are not in the set).
MUST_DECLARE = ("requests.cpu", "requests.memory", "limits.cpu", "limits.memory")


def declared(pod: PodSpec) -> set[str]:
    """The quota keys the container declares, after the API server's defaulting (a limit without a request sets the
    request)."""
    limits = pod.limits_declared if pod.limits_declared is not None else frozenset(
        r for r in RESOURCES if pod.limits is not None and pod.limits.get(r))
    requests = pod.requests_declared if pod.requests_declared is not None else frozenset(
        r for r in RESOURCES if pod.requests.get(r))
    return {f"requests.{r}" for r in requests | limits} | {f"limits.{r}" for r in limits}


def check_quota(pod: PodSpec, quota: ResourceQuota | None) -> dict | None:
    """The ResourceQuota admission check: None when no quota; else its verdict and the message the API server sends."""
    if quota is None:
        return None
    req = effective_requests(pod)
    limits = _pod_limits(pod)
    wants = {"pods": 1.0, "requests.cpu": req.cpu, "requests.memory": req.memory, f"requests.{GPU}": float(req.gpu),
             "limits.cpu": limits.cpu, "limits.memory": limits.memory}
    tracked = [key for key in QUOTA_KEYS if key in quota.hard]
    missing = sorted(set(tracked) & set(MUST_DECLARE) - declared(pod))
    if missing:
        message = (f"failed quota: {quota.name}: must specify "
                   + "; ".join(f"{key} for: {pod.container}" for key in missing))
        return {"name": quota.name, "admitted": False, "message": message, "exceeded": [],
                "fix": [f"set {', '.join(missing)} on the container {pod.container} (the quota {quota.name} tracks "
                        f"{'it' if len(missing) == 1 else 'them'}, so every container must declare "
                        f"{'it' if len(missing) == 1 else 'them'})"]}
    requested = {key: wants[key] for key in tracked if wants[key]}
    exceeded = [key for key in requested if quota.used.get(key, 0.0) + requested[key] > quota.hard[key] + EPS]
    if not exceeded:
        return {"name": quota.name, "admitted": True, "message": "", "exceeded": [], "fix": []}
    message = (f"exceeded quota: {quota.name}, requested: {pretty_resources({k: requested[k] for k in exceeded})}, "
               f"used: {pretty_resources({k: quota.used.get(k, 0.0) for k in exceeded})}, "
               f"limited: {pretty_resources({k: quota.hard[k] for k in exceeded})}")
    fix = []
    for key in sorted(exceeded):
        need = quota.used.get(key, 0.0) + requested[key]
        room = quota.hard[key] - quota.used.get(key, 0.0)
        text = f"raise the quota {key} to {fmt_quantity(key, need)}"
        if key != "pods" and room > EPS and (key != f"requests.{GPU}" or room >= 1):
            text += f", or request ≤ {fmt_quantity(key, room)}"
        fix.append(text)
    return {"name": quota.name, "admitted": False, "message": message, "exceeded": sorted(exceeded), "fix": fix}


def _untolerated(node: Node, tolerations: tuple[Toleration, ...]) -> list[Taint]:
    return [t for t in node.taints if t.effect in FILTERING_EFFECTS and not any(tol.tolerates(t) for tol in tolerations)]


def _selector_mismatches(pod: PodSpec, labels: dict[str, str]) -> list[str]:
    """Why the node's labels fail the nodeSelector / required affinity (empty when they match)."""
    problems = [f"nodeSelector {k}={v}" for k, v in pod.node_selector.items() if labels.get(k) != v]
    if pod.affinity_terms and not any(all(r.matches(labels) for r in term) for term in pod.affinity_terms):
        for term in pod.affinity_terms[:1]:
            problems += [f"affinity {r.key} {r.operator} {list(r.values)}" for r in term if not r.matches(labels)]
    return problems


def _resource_shortfalls(req: Resources, node: Node, pods: tuple[RunningPod, ...]) -> list[tuple[str, float, float]]:
    """(resource, requested, free) for each resource the node is short of, in the fit plugin's order."""
    short = []
    if len(pods) + 1 > node.max_pods:
        short.append(("pods", 1.0, float(node.max_pods - len(pods))))
    for resource in RESOURCES:
        want = req.get(resource)
        free = node.allocatable.get(resource) - sum(p.requests.get(resource) for p in pods)
        if want > EPS and want > free + EPS:
            short.append((resource, want, free))
    return short


def _resource_reason(resource: str) -> str:
    return "Too many pods" if resource == "pods" else f"Insufficient {resource}"


def _toleration_text(t: Taint) -> str:
    return (f"add a toleration for {t.key}:{t.effect} (key: {t.key}, operator: "
            + ("Exists" if not t.value or t.value == "present" else f"Equal, value: {t.value}") + f", effect: {t.effect})")


def _node_fix(pod: PodSpec, req: Resources, node: Node) -> tuple[list[str], int]:
    """The changes that would make this node fit, and their cost (count; a change on the pod is cheaper than on the
    cluster)."""
    steps: list[str] = []
    cost = 0
    if node.unschedulable:
        steps.append(f"uncordon {node.name} (kubectl uncordon {node.name}) — or wait for its replacement")
        cost += 3
    for taint in _untolerated(node, pod.tolerations):
        steps.append(_toleration_text(taint))
        cost += 1
    mismatches = _selector_mismatches(pod, node.labels)
    if mismatches:
        steps.append(f"make the pod's selector match {node.name}'s labels (it fails {'; '.join(mismatches)}) "
                     f"or label the node")
        cost += 1
    for resource, want, free in _resource_shortfalls(req, node, node.pods):
        if resource == "pods":
            steps.append(f"{node.name} already runs {node.max_pods} pods (max pods); move pods off it")
            cost += 3
        elif resource == GPU and free >= 1:
            steps.append(f"request ≤ {int(free)} GPUs (requests and limits of {GPU}; {node.name} has {int(free)} free)")
            cost += 1
        elif resource != GPU and free > EPS:
            steps.append(f"request ≤ {fmt_quantity(resource, free)} {resource} ({node.name} has that much free)")
            cost += 1
        else:
            steps.append(f"free {fmt_quantity(resource, want - max(free, 0))} {resource} on {node.name} "
                         f"(scale down or evict pods there) or add a node with ≥ {fmt_quantity(resource, want)}")
            cost += 3
    return steps, cost


def _preemption(pod: PodSpec, req: Resources, nodes: list[Node], passing_filters: list[Node]) -> Preemption | None:
    """The default preemption, simplified: on a node that fails only on resources, evicting every pod of lower
    priority must make room; the node needing the fewest victims is nominated."""
    best: tuple[int, Node, list[RunningPod]] | None = None
    for node in passing_filters:
        lower = sorted((p for p in node.pods if p.priority < pod.priority), key=lambda p: p.priority)
        keep = tuple(p for p in node.pods if p.priority >= pod.priority)
        if not lower or _resource_shortfalls(req, node, keep):
            continue
        victims: list[RunningPod] = []
        remaining = list(node.pods)
        for victim in lower:  # evict the lowest priority first until the pod fits
            if not _resource_shortfalls(req, node, tuple(remaining)):
                break
            remaining.remove(victim)
            victims.append(victim)
        if best is None or len(victims) < best[0]:
            best = (len(victims), node, victims)
    if best is None:
        return None
    _, node, victims = best
    names = [v.name for v in victims]
    return Preemption(node=node.name, victims=names,
                      message=f"preempting {len(names)} lower-priority pod(s) on {node.name} ({', '.join(names)}); "
                              f"the pod is nominated to {node.name} and binds once they terminate")


def debug_pending(pod: PodSpec, nodes: list[Node], quota: ResourceQuota | None = None) -> PendingResult:
    """Admission (ResourceQuota), then every node through the scheduler's filters; the FitError message when no
    node passes, preemption when priority allows it, and the smallest fix."""
    if not nodes:
        raise ModelInputError("nodes", "give at least one node")
    validate_pod(pod)
    req = effective_requests(pod)
    quota_verdict = check_quota(pod, quota)
    lines = [f"Pod {pod.namespace}/{pod.name} requests cpu={fmt_cpu(req.cpu)}, memory={fmt_memory(req.memory)}, "
             f"{GPU}={req.gpu}" + (" (GPU request defaulted from its limit)" if req.gpu and not pod.requests.gpu else "")
             + f"; priority {pod.priority}."]
    if quota_verdict is not None and not quota_verdict["admitted"]:
        message = f'pods "{pod.name}" is forbidden: {quota_verdict["message"]}'
        lines.append(f"Admission: ResourceQuota {quota.name if quota else ''}: used + requested > hard for "
                     f"{', '.join(quota_verdict['exceeded']) or 'a tracked limit'}, so the API server refuses the pod "
                     "before the scheduler ever sees it (a Deployment's ReplicaSet shows it as a FailedCreate event).")
        return PendingResult(
            admitted=False, schedules=False, node=None, feasible_nodes=[], phase="NotCreated", message=message,
            event=f"Warning  FailedCreate  replicaset-controller  Error creating: {message}", nodes=[],
            quota=quota_verdict, preemption=None, fix=quota_verdict["fix"], fix_node=None, derivation=" ".join(lines))
    if quota_verdict is not None:
        lines.append(f"Admission: within ResourceQuota {quota_verdict['name']}.")

    verdicts: list[NodeVerdict] = []
    only_resources: list[Node] = []
    for node in nodes:
        free = {r: node.free(r) for r in RESOURCES}
        plugin, reasons = None, []
        untolerated = _untolerated(node, pod.tolerations)
        if node.unschedulable:
            plugin, reasons = "NodeUnschedulable", ["node(s) were unschedulable"]
        elif untolerated:
            t = untolerated[0]
            plugin, reasons = "TaintToleration", [f"node(s) had untolerated taint {{{t.key}: {t.value}}}"]
        elif _selector_mismatches(pod, node.labels):
            plugin, reasons = "NodeAffinity", ["node(s) didn't match Pod's node affinity/selector"]
        else:
            short = _resource_shortfalls(req, node, node.pods)
            if short:
                plugin, reasons = "NodeResourcesFit", [_resource_reason(r) for r, _, _ in short]
                only_resources.append(node)
        fix, _ = _node_fix(pod, req, node) if plugin else ([], 0)
        verdicts.append(NodeVerdict(name=node.name, fits=plugin is None, plugin=plugin,
                                    reason=reasons[0] if reasons else None, reasons=reasons, free=free, fix=fix))
        detail = "fits" if plugin is None else f"{plugin}: {', '.join(reasons)}"
        lines.append(f"{node.name} (free cpu {fmt_cpu(free['cpu'])}, memory {fmt_memory(free['memory'])}, "
                     f"GPUs {int(free[GPU])}): {detail}.")

    feasible = [v.name for v in verdicts if v.fits]
    if feasible:
        # Scoring, simplified to LeastAllocated on GPUs then CPU: the feasible node with the most free room.
        chosen = max((n for n in nodes if n.name in feasible), key=lambda n: (n.free(GPU), n.free("cpu")))
        message = f"Successfully assigned {pod.namespace}/{pod.name} to {chosen.name}"
        lines.append(f"{len(feasible)} feasible node(s); the scorer prefers the least allocated: {chosen.name}.")
        return PendingResult(
            admitted=True, schedules=True, node=chosen.name, feasible_nodes=feasible, phase="Running", message=message,
            event=f"Normal  Scheduled  default-scheduler  {message}", nodes=verdicts, quota=quota_verdict,
            preemption=None, fix=[], fix_node=None, derivation=" ".join(lines))

    counts: dict[str, int] = {}
    for v in verdicts:
        for reason in v.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    message = f"0/{len(nodes)} nodes are available: {', '.join(histogram)}."
    preemption = _preemption(pod, req, nodes, only_resources)
    costs = {node.name: _node_fix(pod, req, node) for node in nodes}
    fix_node = min(nodes, key=lambda n: (costs[n.name][1], len(costs[n.name][0])))
    fix = list(costs[fix_node.name][0])
    if preemption is not None:
        fix = [f"nothing to change: priority {pod.priority} preempts {', '.join(preemption.victims)} on "
               f"{preemption.node}"]
        fix_node = next(n for n in nodes if n.name == preemption.node)
        lines.append(preemption.message + ".")
    lines.append(f"FitError: each node's reasons counted and the '<count> <reason>' strings sorted: {message}")
    lines.append(f"Smallest fix (fewest changes, pod-side first): {fix_node.name}: {'; '.join(fix)}.")
    return PendingResult(
        admitted=True, schedules=False, node=None, feasible_nodes=[], phase="Pending", message=message,
        event=f"Warning  FailedScheduling  default-scheduler  {message}", nodes=verdicts, quota=quota_verdict,
        preemption=preemption, fix=fix, fix_node=fix_node.name, derivation=" ".join(lines))


# ---------------------------------------------------------------- quota gates


@dataclass
class Gate:
    name: str
    limit_replicas: int  # what this gate alone allows
    passing_replicas: int  # what gets through this gate and every gate before it
    stops_here: bool
    detail: str
    message: str  # what you would see when this gate stops you
    fix: str


@dataclass
class QuotaGatesResult:
    desired_replicas: int
    serving_replicas: int
    stopped_at: str | None
    gates: list[Gate]
    nodes_available: int
    gpus_per_node: int
    replicas_per_node: int
    stranded_gpus_per_node: int
    derivation: str


def quota_gates(*, desired_replicas: int, gpus_per_replica: int, gpus_per_node: int, existing_nodes: int,
                cloud_gpu_quota: int, cloud_gpus_in_use: int, instances_available: int, pool_max_nodes: int,
                namespace_gpu_quota: int | None = None, namespace_gpus_used: int = 0, gpus_used_by_other_pods: int = 0,
                instance_type: str = "p5.48xlarge", namespace: str = "inference",
                quota_name: str = "gpu-quota") -> QuotaGatesResult:
    """"Want N replicas" through cloud GPU quota → instance availability → namespace ResourceQuota → schedulable
    GPUs; each gate passes min(what came in, what it allows); the request stops at the first gate that cuts it."""
    g, per_node = gpus_per_replica, gpus_per_node
    if g > per_node:
        raise ModelInputError("gpus_per_replica", f"a replica needing {g} GPUs cannot fit on a {per_node}-GPU node "
                                                  "(one pod runs on one node; use multi-node serving instead)")
    if cloud_gpus_in_use > cloud_gpu_quota:
        raise ModelInputError("cloud_gpus_in_use", "must be <= cloud_gpu_quota")
    if existing_nodes > pool_max_nodes:
        raise ModelInputError("existing_nodes", "must be <= pool_max_nodes")
    replicas_per_node = per_node // g
    stranded = per_node - replicas_per_node * g
    needed_nodes = math.ceil(desired_replicas / replicas_per_node)
    lines = [f"Want {desired_replicas} replicas × {g} GPUs; a {per_node}-GPU {instance_type} node holds "
             f"floor({per_node}/{g}) = {replicas_per_node} replica(s)"
             + (f" and strands {stranded} GPU(s)" if stranded else "") + f", so {needed_nodes} node(s) are needed."]

    # Gate 1: the cloud account's GPU quota for the region/family: how many more nodes may be launched.
    new_needed = max(needed_nodes - existing_nodes, 0)
    quota_nodes = (cloud_gpu_quota - cloud_gpus_in_use) // per_node
    cloud_nodes = existing_nodes + quota_nodes
    gates: list[Gate] = []
    passing = desired_replicas

    def add(name: str, limit: int, detail: str, message: str, fix: str) -> None:
        nonlocal passing
        through = min(passing, limit)
        stops = through < passing and not any(gate.stops_here for gate in gates)
        gates.append(Gate(name=name, limit_replicas=limit, passing_replicas=through, stops_here=stops, detail=detail,
                          message=message if through < passing else "", fix=fix if through < passing else ""))
        lines.append(f"{name}: {detail} → min({passing}, {limit}) = {through}.")
        passing = through

    add("cloud GPU quota", cloud_nodes * replicas_per_node,
        f"({cloud_gpu_quota} − {cloud_gpus_in_use}) GPUs of quota // {per_node} = {quota_nodes} more node(s) + "
        f"{existing_nodes} existing = {cloud_nodes} nodes × {replicas_per_node}",
        f"the cluster autoscaler's scale-up fails: the cloud refuses {instance_type} (GPU quota "
        f"{cloud_gpu_quota}, in use {cloud_gpus_in_use}; it needs {new_needed * per_node} more)",
        f"ask for a GPU quota increase to {cloud_gpus_in_use + new_needed * per_node} GPUs in the region "
        f"(quota raises take days: file before launch)")

    # Gate 2: instances the cloud can actually hand out now, and the node pool's max size.
    launchable = min(quota_nodes, instances_available, pool_max_nodes - existing_nodes)
    have_nodes = existing_nodes + max(launchable, 0)
    add("instance availability", have_nodes * replicas_per_node,
        f"min(quota {quota_nodes}, available {instances_available}, pool max {pool_max_nodes} − {existing_nodes}) = "
        f"{launchable} new node(s) → {have_nodes} nodes × {replicas_per_node}",
        f"scale-up stalls: {instance_type} has insufficient capacity in the zone (stockout), or the pool is at its "
        f"max size {pool_max_nodes}",
        "add zones or instance types to the pool, use a capacity reservation, or raise the pool's max nodes")

    # Gate 3: the namespace ResourceQuota (admission: pods over it are never created).
    if namespace_gpu_quota is None:
        ns_limit = desired_replicas
        ns_detail = "no ResourceQuota on GPUs"
        ns_message = ""
    else:
        ns_limit = max(namespace_gpu_quota - namespace_gpus_used, 0) // g
        ns_detail = f"({namespace_gpu_quota} − {namespace_gpus_used}) // {g} = {ns_limit} replicas"
        ns_message = (f'Error creating: pods "vllm-…" is forbidden: exceeded quota: {quota_name}, '
                      f"requested: requests.{GPU}={g}, used: requests.{GPU}={namespace_gpus_used + ns_limit * g}, "
                      f"limited: requests.{GPU}={namespace_gpu_quota}")
    add("namespace ResourceQuota", ns_limit, ns_detail, ns_message,
        f"raise requests.{GPU} in ResourceQuota {quota_name} ({namespace}) to "
        f"{namespace_gpus_used + desired_replicas * g}")

    # Gate 4: GPUs the scheduler can place whole replicas on (bin packing: a replica uses GPUs of one node).
    free_total = have_nodes * per_node - gpus_used_by_other_pods
    if free_total < 0:
        raise ModelInputError("gpus_used_by_other_pods", f"more than the {have_nodes * per_node} GPUs of the nodes")
    # Other pods' GPUs packed onto as few nodes as possible, the rest of each node holds floor(free / g) replicas.
    full_nodes, rest = divmod(gpus_used_by_other_pods, per_node)
    placeable = (have_nodes - full_nodes - (1 if rest else 0)) * replicas_per_node + ((per_node - rest) // g if rest else 0)
    placeable = max(placeable, 0)
    add("schedulable GPUs", placeable,
        f"{have_nodes} × {per_node} − {gpus_used_by_other_pods} used = {free_total} free GPUs, placeable as whole "
        f"{g}-GPU replicas: {placeable}",
        f"0/{have_nodes} nodes are available: {have_nodes} Insufficient {GPU}.",
        f"free GPUs held by other pods, pick a replica size that divides {per_node}, or add nodes")
    stopped = next((gate.name for gate in gates if gate.stops_here), None)
    lines.append(f"Serving: {passing} of {desired_replicas}"
                 + (f"; the request stops at the {stopped}." if stopped else "; every gate passes."))
    return QuotaGatesResult(
        desired_replicas=desired_replicas, serving_replicas=passing, stopped_at=stopped, gates=gates,
        nodes_available=have_nodes, gpus_per_node=per_node, replicas_per_node=replicas_per_node,
        stranded_gpus_per_node=stranded, derivation=" ".join(lines))


# ---------------------------------------------------------------- node rotation


@dataclass
class RotationPoint:
    t_s: float
    serving: int  # ready replicas (pass readiness, receive traffic)
    starting: int  # scheduled, pulling the image / loading the model / warming up
    pending: int  # no node with room
    old_nodes: int
    new_nodes: int  # Ready replacement nodes
    provisioning_nodes: int
    event: str


@dataclass
class RotationOption:
    name: str
    duration_s: float | None
    min_serving: int
    seconds_below_need: float
    replica_seconds_short: float
    stuck: bool


@dataclass
class RotationResult:
    replicas: int
    replicas_needed: int
    replicas_per_node: int
    pod_start_s_new_node: float  # schedule → Ready on a fresh node
    pod_start_s_old_node: float  # schedule → Ready on a node that already has the image
    duration_s: float | None  # until the last old node is gone and the pool is back to full size
    recovered_s: float | None  # until every replica serves again
    min_serving: int
    seconds_below_need: float
    replica_seconds_short: float
    stuck: bool
    stuck_reason: str
    timeline: list[RotationPoint]
    options: list[RotationOption]
    derivation: str


@dataclass
class _RNode:
    name: str
    old: bool
    ready_at: float
    cordoned: bool = False
    deleted: bool = False
    image_at: float | None = None  # when the serving image is on the node (None: not pulled yet)
    drain_started: float | None = None


@dataclass
class _RPod:
    node: str | None
    ready_at: float | None  # None: pending (no node)


def _simulate_rotation(*, nodes: int, slots: int, replicas: int, needed: int, min_available: int, max_surge: int,
                       max_unavailable: int, provision_s: float, pull_s: float, download_s: float, load_s: float,
                       warmup_s: float, pre_pulled: bool, model_cache: bool, pdb_timeout_s: float | None,
                       record: bool = True) -> dict:
    pool = {f"old-{i + 1}": _RNode(f"old-{i + 1}", True, 0.0, image_at=0.0) for i in range(nodes)}
    pods = [_RPod(node=f"old-{i % nodes + 1}", ready_at=0.0) for i in range(replicas)]  # spread round-robin
    queue = [f"old-{i + 1}" for i in range(nodes)]
    # A slot works on one old node: surge slots add the new node first, unavailable slots drain first.
    slots_state: list[dict[str, Any]] = [{"kind": "surge", "old": None, "new": None} for _ in range(max_surge)]
    slots_state += [{"kind": "unavailable", "old": None, "new": None} for _ in range(max_unavailable)]
    fresh = 0
    after_image = 0.0 if model_cache else download_s
    start_tail = after_image + load_s + warmup_s
    t = 0.0
    timeline: list[RotationPoint] = []
    events: list[str] = []

    def new_node(now: float) -> str:
        nonlocal fresh
        fresh += 1
        name = f"new-{fresh}"
        pool[name] = _RNode(name, False, now + provision_s, image_at=(now + provision_s) if pre_pulled else None)
        events.append(f"{name} requested")
        return name

    def serving(now: float) -> int:
        return sum(1 for p in pods if p.ready_at is not None and p.ready_at <= now)

    def step(now: float) -> bool:
        changed = False
        for s in slots_state:  # start work, and move each slot along
            node = pool.get(s["old"]) if s["old"] else None
            if s["old"] is None and queue:
                target: str = queue.pop(0)
                s["old"], s["new"] = target, None
                changed = True
                if s["kind"] == "surge":
                    s["new"] = new_node(now)
                else:
                    pool[target].cordoned, pool[target].drain_started = True, now
                    events.append(f"{target} cordoned, draining")
                continue
            if node is None:
                continue
            if s["kind"] == "surge":
                if not node.cordoned and pool[s["new"]].ready_at <= now:
                    node.cordoned, node.drain_started = True, now
                    events.append(f"{s['new']} Ready; {node.name} cordoned, draining")
                    changed = True
                if node.deleted:
                    s["old"] = s["new"] = None
                    changed = True
            else:
                if node.deleted and s["new"] is None:
                    s["new"] = new_node(now)
                    changed = True
                elif s["new"] is not None and pool[s["new"]].ready_at <= now:
                    events.append(f"{s['new']} Ready")
                    s["old"] = s["new"] = None
                    changed = True
        for node in pool.values():  # evictions, one at a time, each checked against the PDB
            if not node.cordoned or node.deleted:
                continue
            forced = pdb_timeout_s is not None and node.drain_started is not None and now - node.drain_started >= pdb_timeout_s
            ready = serving(now)
            remaining = 0
            for pod in [p for p in pods if p.node == node.name]:
                is_ready = pod.ready_at is not None and pod.ready_at <= now
                if is_ready and not forced and ready - 1 < min_available:
                    remaining += 1
                    continue
                ready -= is_ready
                pod.node, pod.ready_at = None, None  # evicted; the Deployment creates a replacement, Pending
                changed = True
            if remaining == 0:
                node.deleted = True
                events.append(f"{node.name} drained and deleted" + (" (PDB timeout: forced)" if forced else ""))
                changed = True
        counts: dict[str, int] = {}
        for pod in pods:
            if pod.node is not None:
                counts[pod.node] = counts.get(pod.node, 0) + 1
        open_nodes = [n for n in pool.values() if not n.cordoned and not n.deleted and n.ready_at <= now]
        for pod in pods:  # schedule Pending pods: the least allocated Ready, uncordoned node with a free slot
            if pod.node is not None:
                continue
            room = [n for n in open_nodes if counts.get(n.name, 0) < slots]
            if not room:
                break
            best = max(room, key=lambda n: (slots - counts.get(n.name, 0), not n.old))
            counts[best.name] = counts.get(best.name, 0) + 1
            if best.image_at is None:
                best.image_at = now + pull_s
            pod.node = best.name
            pod.ready_at = max(now, best.image_at) + start_tail
            changed = True
        return changed

    stuck_reason = ""
    done_at: float | None = None
    horizon = 30 * 86_400.0
    while True:
        events.clear()
        for _ in range(10_000):
            if not step(t):
                break
        ready_now = serving(t)
        old_left = sum(1 for n in pool.values() if n.old and not n.deleted)
        busy = any(s["old"] is not None for s in slots_state)
        if record:
            timeline.append(RotationPoint(
                t_s=t, serving=ready_now, starting=sum(1 for p in pods if p.node is not None) - ready_now,
                pending=sum(1 for p in pods if p.node is None), old_nodes=old_left,
                new_nodes=sum(1 for n in pool.values() if not n.old and not n.deleted and n.ready_at <= t),
                provisioning_nodes=sum(1 for n in pool.values() if not n.deleted and n.ready_at > t),
                event="; ".join(events)))
        if done_at is None and old_left == 0 and not busy and not queue:
            done_at = t
        future = [p.ready_at for p in pods if p.ready_at is not None and p.ready_at > t]
        future += [n.ready_at for n in pool.values() if not n.deleted and n.ready_at > t]
        if pdb_timeout_s is not None:
            future += [n.drain_started + pdb_timeout_s for n in pool.values()
                       if n.cordoned and not n.deleted and n.drain_started is not None
                       and n.drain_started + pdb_timeout_s > t]
        if not future:
            if done_at is None or ready_now < replicas:
                blocked = [n.name for n in pool.values() if n.cordoned and not n.deleted]
                stuck_reason = (f"drain of {', '.join(blocked)} is blocked: Cannot evict pod as it would violate the "
                                f"pod's disruption budget (minAvailable {min_available}, {ready_now} ready, and no "
                                f"free slot for a replacement)" if blocked else
                                f"{sum(1 for p in pods if p.node is None)} replica(s) Pending with no node that has room")
            break
        t = min(future)
        if t > horizon:
            stuck_reason = "did not finish within 30 days"
            break
    recovered = t if ready_now >= replicas and not stuck_reason else None
    return {"timeline": timeline, "done_at": done_at if not stuck_reason else None, "recovered": recovered,
            "stuck_reason": stuck_reason, "start_tail": start_tail}


def _dip(timeline: list[RotationPoint], needed: int) -> tuple[int, float, float]:
    """Minimum serving, seconds below the need and replica-seconds short, integrating the step function."""
    low = min(p.serving for p in timeline)
    below = short = 0.0
    for a, b in itertools.pairwise(timeline):
        if a.serving < needed:
            below += b.t_s - a.t_s
            short += (needed - a.serving) * (b.t_s - a.t_s)
    return low, below, short


def node_rotation(*, nodes: int, gpus_per_node: int, gpus_per_replica: int, replicas: int, replicas_needed: int,
                  pdb_min_available: int, max_surge: int, max_unavailable: int, node_provision_s: float,
                  image_pull_s: float, model_download_s: float, model_load_s: float, warmup_s: float,
                  pre_pulled_image: bool = False, model_cache: bool = False,
                  pdb_timeout_s: float | None = None) -> RotationResult:
    """Replace every node of a GPU pool (surge upgrade: max_surge extra nodes, at most max_unavailable nodes down at
    once), draining each old node through the Eviction API under a PodDisruptionBudget; evicted replicas reschedule
    and serve again only after image pull + model download + load + warm-up. The timeline of serving replicas, the
    dip against replicas_needed, and what surge, pre-pulled images and a model cache change."""
    if gpus_per_replica > gpus_per_node:
        raise ModelInputError("gpus_per_replica", "must be <= gpus_per_node")
    slots = gpus_per_node // gpus_per_replica
    if replicas > nodes * slots:
        raise ModelInputError("replicas", f"{nodes} nodes × {slots} replicas per node hold at most {nodes * slots}")
    if max_surge + max_unavailable < 1:
        raise ModelInputError("max_surge", "max_surge + max_unavailable must be at least 1 or nothing can rotate")
    if pdb_min_available > replicas:
        raise ModelInputError("pdb_min_available", "must be <= replicas")
    args: dict[str, Any] = dict(nodes=nodes, slots=slots, replicas=replicas, needed=replicas_needed, min_available=pdb_min_available,
                max_surge=max_surge, max_unavailable=max_unavailable, provision_s=node_provision_s,
                pull_s=image_pull_s, download_s=model_download_s, load_s=model_load_s, warmup_s=warmup_s,
                pre_pulled=pre_pulled_image, model_cache=model_cache, pdb_timeout_s=pdb_timeout_s)
    run = _simulate_rotation(**args)
    timeline = run["timeline"]
    low, below, short = _dip(timeline, replicas_needed)
    tail = run["start_tail"]
    new_start = (0.0 if pre_pulled_image else image_pull_s) + tail

    variants: list[tuple[str, dict[str, Any]]] = [("as configured", {})]
    variants.append((f"max_surge {max_surge + 1}", {"max_surge": max_surge + 1}))
    if not pre_pulled_image:
        variants.append(("pre-pulled image", {"pre_pulled": True}))
    if not model_cache:
        variants.append(("model cache", {"model_cache": True}))
    if len(variants) > 2:
        variants.append(("all of these", {"max_surge": max_surge + 1, "pre_pulled": True, "model_cache": True}))
    options = []
    for name, change in variants:
        other = run if not change else _simulate_rotation(**{**args, **change})
        o_low, o_below, o_short = _dip(other["timeline"], replicas_needed)
        options.append(RotationOption(name=name, duration_s=other["done_at"], min_serving=o_low,
                                      seconds_below_need=o_below, replica_seconds_short=o_short,
                                      stuck=bool(other["stuck_reason"])))

    lines = [f"{nodes} nodes × floor({gpus_per_node}/{gpus_per_replica}) = {slots} replica slots each; "
             f"{replicas} replicas, {replicas_needed} needed for the traffic.",
             f"A replica on a fresh node is Ready after {'0 (pre-pulled)' if pre_pulled_image else f'{image_pull_s:g}'}"
             f" s image pull + {'0 (model cache)' if model_cache else f'{model_download_s:g}'} s download + "
             f"{model_load_s:g} s load + {warmup_s:g} s warm-up = {new_start:g} s; on a node that has the image, "
             f"{tail:g} s.",
             f"Surge upgrade: {max_surge} extra node(s) at a time (new node Ready after {node_provision_s:g} s, then an "
             f"old node is cordoned and drained), {max_unavailable} node(s) drained before their replacement exists.",
             f"PDB minAvailable {pdb_min_available}: an eviction is allowed only while ready − 1 ≥ "
             f"{pdb_min_available}" + (f"; after {pdb_timeout_s:g} s of draining the node is forced"
                                        if pdb_timeout_s is not None else "") + ".",
             f"Result: serving dips to {low} (need {replicas_needed}); {below:g} s below the need, "
             f"{short:g} replica-seconds short"
             + (f"; rotation done at {run['done_at']:g} s." if run["done_at"] is not None else "."),
             ]
    if run["stuck_reason"]:
        lines.append(f"Stuck: {run['stuck_reason']}.")
    return RotationResult(
        replicas=replicas, replicas_needed=replicas_needed, replicas_per_node=slots, pod_start_s_new_node=new_start,
        pod_start_s_old_node=tail, duration_s=run["done_at"], recovered_s=run["recovered"], min_serving=low,
        seconds_below_need=below, replica_seconds_short=short, stuck=bool(run["stuck_reason"]),
        stuck_reason=run["stuck_reason"], timeline=timeline, options=options, derivation=" ".join(lines))
