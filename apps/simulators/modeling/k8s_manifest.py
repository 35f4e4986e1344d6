"""The Kubernetes manifests of a vLLM server, annotated line by line, and a checker for the mistakes people make when
they edit them.

Pure Python (PyYAML only, no Django). `serving_manifests` writes what the serve builder hands out: a Deployment (or a
LeaderWorkerSet when one replica spans nodes), a Service and a HorizontalPodAutoscaler. `annotate` walks any such text
and explains each field an inference server cares about; `check` returns the mistakes with their line:

- a GPU request without a limit, or one that differs from the limit (Kubernetes refuses both for extended resources);
  a limit alone is accepted (the request defaults to it) but worth writing out;
- a GPU count that is not tensor-parallel × pipeline-parallel × data-parallel size (per node for a multi-node
  replica);
- tensor parallelism without a memory-backed /dev/shm (the container default is 64 MiB);
- a liveness probe that can kill the container before the model has loaded (no startupProbe, and
  initialDelaySeconds + periodSeconds × failureThreshold shorter than the load time), and a startupProbe whose budget
  is shorter than the load time;
- no readinessProbe (traffic arrives before the engine is up);
- GPUs requested without a toleration for the GPU pool's taint;
- an image tagged latest (or untagged).
The YAML is parsed with the safe loader, at most MAX_BYTES and MAX_DOCUMENTS; a syntax error is a ManifestError naming
its line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import yaml

from .errors import ModelInputError

MAX_BYTES = 64 * 1024
MAX_DOCUMENTS = 10
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
POD_SPECS: dict[str, list[tuple[str, ...]]] = {
    "Deployment": [("spec", "template", "spec")],
    "StatefulSet": [("spec", "template", "spec")],
    "Pod": [("spec",)],
    "LeaderWorkerSet": [("spec", "leaderWorkerTemplate", "leaderTemplate", "spec"),
                        ("spec", "leaderWorkerTemplate", "workerTemplate", "spec")],
}
SHM_DEFAULT_MIB = 64


class ManifestError(ModelInputError):
    """YAML that cannot be read; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__("yaml", f"line {line}: {message}")


@dataclass(frozen=True)
class Finding:
    line: int
    severity: str  # "error" (Kubernetes refuses it, or the server cannot work) or "warning"
    field: str
    message: str


@dataclass(frozen=True)
class Note:
    line: int
    field: str
    note: str


# ---------------------------------------------------------------- the manifests the serve builder hands out


def serving_manifests(*, name: str, model_id: str, args: list[str], tp: int, pp: int = 1, dp: int = 1,
                      gpus_per_node: int = 8,
                      port: int = 8000, image: str = "vllm/vllm-openai:v0.33.0", resource: str = "nvidia.com/gpu",
                      max_replicas: int = 4, load_s: int = 600) -> str:
    """Deployment (or LeaderWorkerSet when tp × pp × dp GPUs exceed one node), Service and HPA as one YAML text. A
    LeaderWorkerSet's leader starts `vllm serve` on the pods' Ray cluster: with `args`' own launch backend
    (--data-parallel-backend or --distributed-executor-backend) or else --distributed-executor-backend ray."""
    if tp < 1 or pp < 1 or dp < 1 or gpus_per_node < 1:
        raise ModelInputError("tp", "tp, pp, dp and gpus_per_node must be at least 1")
    gpus = tp * pp * dp
    nodes = math.ceil(gpus / gpus_per_node)
    if nodes > 1 and gpus % gpus_per_node:
        raise ModelInputError("tp", f"{gpus} GPUs span nodes, so must fill whole nodes of {gpus_per_node}")
    per_pod = gpus // nodes
    startup_failures = math.ceil(load_s / 10)
    quoted = "\n".join(f"            - {json.dumps(str(a))}" for a in args)
    container = f"""          image: {image}  # pin a version tag in production
          ports:
            - containerPort: {port}
              name: http
          resources:
            requests:
              {resource}: "{per_pod}"
              cpu: "{4 * per_pod}"
              memory: {32 * per_pod}Gi
            limits:
              {resource}: "{per_pod}"
              memory: {32 * per_pod}Gi
          env:
            - name: HF_TOKEN
              valueFrom:
                secretKeyRef:
                  name: hf-token
                  key: token
          volumeMounts:
            - name: dshm
              mountPath: /dev/shm
            - name: model-cache
              mountPath: /root/.cache/huggingface"""
    probes = f"""          startupProbe:
            httpGet:
              path: /health
              port: {port}
            periodSeconds: 10
            failureThreshold: {startup_failures}
          readinessProbe:
            httpGet:
              path: /health
              port: {port}
            periodSeconds: 5
          livenessProbe:
            httpGet:
              path: /health
              port: {port}
            periodSeconds: 10
            failureThreshold: 3"""
    pod_extras = f"""      nodeSelector:
        nvidia.com/gpu.present: "true"
      tolerations:
        - key: {resource}
          operator: Exists
          effect: NoSchedule
      terminationGracePeriodSeconds: 120
      volumes:
        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: {min(16 * per_pod, 64)}Gi
        - name: model-cache
          persistentVolumeClaim:
            claimName: model-cache"""
    if nodes == 1:
        workload = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels:
    app: {name}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              app: {name}
{_indent(pod_extras, 0)}
      containers:
        - name: vllm
          command: ["vllm", "serve"]
          args:
{quoted}
{container}
{probes}
"""
    else:
        launch = [] if {"--data-parallel-backend", "--distributed-executor-backend"} & set(args) else [
            "--distributed-executor-backend", "ray"]
        ray_args = " ".join(json.dumps(str(a)) for a in [*args, *launch])
        workload = f"""apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: {name}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: {nodes}
    restartPolicy: RecreateGroupOnPodRestart
    leaderTemplate:
      metadata:
        labels:
          role: leader
          app: {name}
      spec:
{_indent(pod_extras, 2)}
        containers:
          - name: vllm
            command: ["sh", "-c"]
            args:
              - ray start --head --port=6379 && vllm serve {ray_args}
{_indent(container, 2)}
{_indent(probes, 2)}
    workerTemplate:
      spec:
{_indent(pod_extras, 2)}
        containers:
          - name: vllm
            command: ["sh", "-c"]
            args:
              - ray start --address=$(LWS_LEADER_ADDRESS):6379 --block
{_indent(container, 2)}
"""
    service = f"""apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  selector:
    app: {name}{chr(10) + "    role: leader" if nodes > 1 else ""}
  ports:
    - name: http
      port: 80
      targetPort: {port}
"""
    target = "LeaderWorkerSet" if nodes > 1 else "Deployment"
    api = "leaderworkerset.x-k8s.io/v1" if nodes > 1 else "apps/v1"
    hpa = f"""apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {name}
spec:
  scaleTargetRef:
    apiVersion: {api}
    kind: {target}
    name: {name}
  minReplicas: 1
  maxReplicas: {max_replicas}
  metrics:
    - type: Pods
      pods:
        metric:
          name: vllm_num_requests_waiting
        target:
          type: AverageValue
          averageValue: "5"
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 600
"""
    return "---\n".join([workload, service, hpa])


def _indent(text: str, spaces: int) -> str:
    return "\n".join((" " * spaces + line) if line else line for line in text.split("\n"))


# ---------------------------------------------------------------- reading YAML with its lines


def parse(text: str) -> list[yaml.Node]:
    """The documents of ``text`` as PyYAML nodes (which carry their lines); ManifestError on bad or oversized input."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ModelInputError("yaml", f"at most {MAX_BYTES:,} bytes")
    try:
        documents = [doc for doc in yaml.compose_all(text, Loader=yaml.SafeLoader) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise ManifestError(mark.line + 1 if mark else 1, str(exc.problem or exc.context or "invalid YAML")) from None
    except yaml.YAMLError as exc:
        raise ManifestError(1, str(exc)) from None
    if not documents:
        raise ManifestError(1, "no YAML document")
    if len(documents) > MAX_DOCUMENTS:
        raise ModelInputError("yaml", f"at most {MAX_DOCUMENTS} documents")
    for doc in documents:
        if not isinstance(doc, yaml.MappingNode):
            raise ManifestError(doc.start_mark.line + 1, "each document must be a mapping (apiVersion, kind, ...)")
        if _depth(doc) > 40:
            raise ManifestError(doc.start_mark.line + 1, "nested too deeply")
    return documents


def _depth(node: yaml.Node, level: int = 0) -> int:
    if level > 40:
        return level
    if isinstance(node, yaml.MappingNode):
        return max([level, *(_depth(v, level + 1) for _, v in node.value)])
    if isinstance(node, yaml.SequenceNode):
        return max([level, *(_depth(v, level + 1) for v in node.value)])
    return level


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _get(node: yaml.Node | None, *keys: str) -> yaml.Node | None:
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            return None
        node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
    return node


def _key_line(node: yaml.Node, key: str) -> int:
    for k, _ in node.value if isinstance(node, yaml.MappingNode) else []:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return _line(k)
    return _line(node)


def _scalar(node: yaml.Node | None) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None


def _items(node: yaml.Node | None) -> list[yaml.Node]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _number(node: yaml.Node | None) -> float | None:
    text = _scalar(node)
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def kinds(text: str) -> list[str]:
    return [_scalar(_get(doc, "kind")) or "?" for doc in parse(text)]


# ---------------------------------------------------------------- annotations

KIND_NOTES = {
    "Deployment": "Identical replicas, each on one node; rolling updates replace them one at a time.",
    "LeaderWorkerSet": "One replica spread over a group of pods (a leader and workers on several nodes), created, "
                       "restarted and scaled as a unit.",
    "Service": "A stable address in front of the ready pods; it balances connections, not LLM load.",
    "HorizontalPodAutoscaler": "Changes the replica count from a metric.",
}
MOUNT_NOTES = {
    "/dev/shm": "/dev/shm: tensor-parallel workers exchange data through shared memory; the container default is "
                "64 MiB.",
    "/root/.cache/huggingface": "Where weights are downloaded; a persistent cache makes a restart a load, not a "
                                "download.",
}
NOTES: list[tuple[str, str]] = [
    ("replicas", "Replicas of the whole model; the HPA below changes it. Each replica loads its own weights."),
    ("topologySpreadConstraints", "Spread replicas over zones (maxSkew 1) so one zone outage takes a fraction of "
                                  "capacity; ScheduleAnyway because scarce GPUs beat perfect spread."),
    ("nodeSelector", "Only nodes that have GPUs (a label set by GPU feature discovery); pin a GPU model with "
                     "nvidia.com/gpu.product if the engine was sized for one."),
    ("tolerations", "GPU node pools are usually tainted (nvidia.com/gpu:NoSchedule) so that CPU pods stay off them; "
                    "the serving pod must tolerate the taint to land there."),
    ("terminationGracePeriodSeconds", "Time for in-flight streams to finish after the pod leaves the Service's "
                                      "endpoints; the default 30 s cuts long generations."),
    ("args", "The vllm serve flags; --tensor-parallel-size × --pipeline-parallel-size × --data-parallel-size must "
             "equal the GPUs of the replica."),
    ("image", "Pin a version: the engine's flags change between releases, and latest makes every restart a "
              "possible upgrade."),
    ("requests.nvidia.com/gpu", "Whole GPUs, equal to the tensor-parallel size. For extended resources the request "
                                "must equal the limit; the scheduler places the pod only on a node with that many "
                                "free."),
    ("limits.nvidia.com/gpu", "The device plugin hands these GPUs to the container; must equal the request."),
    ("requests.amd.com/gpu", "Whole GPUs (AMD device plugin), equal to the tensor-parallel size and to the limit."),
    ("limits.amd.com/gpu", "Must equal the request."),
    ("requests.cpu", "The API server, the engine core's scheduling loop and one process per GPU need CPU; a starved "
                     "engine loop leaves the GPU idle between steps."),
    ("requests.memory", "Host memory for the processes and for reading the weights while loading: size it for the "
                        "load, not for steady serving, or the load is OOMKilled."),
    ("limits.memory", "Exceeding it OOM-kills the container (exit code 137); equal to the request, the pod is not "
                      "evicted first under node memory pressure."),
    ("HF_TOKEN", "Gated checkpoints (Llama) need a Hugging Face token; keep it in a Secret."),
    ("startupProbe", "Holds off liveness and readiness until /health first answers: failureThreshold × periodSeconds "
                     "must exceed the worst cold start (download, load, torch.compile, CUDA graphs)."),
    ("readinessProbe", "Only a ready pod is in the Service's endpoints: traffic arrives once the engine is up, and "
                       "stops while it is unhealthy."),
    ("livenessProbe", "Restarts a hung server. Without the startupProbe above it would count from container start "
                      "and kill a model that is still loading."),
    ("medium", "Memory: /dev/shm backed by RAM (tmpfs), counted against the pod's memory limit."),
    ("sizeLimit", "How much shared memory the workers may use; NCCL and vLLM's message queue need far more than "
                  "64 MiB with tensor parallelism."),
    ("claimName", "A PersistentVolumeClaim holding the weights, shared by restarts (and by replicas if ReadOnlyMany)."),
    ("size", "Pods per replica: one leader and size − 1 workers, one per node."),
    ("restartPolicy", "RecreateGroupOnPodRestart: if any pod of the group fails, the whole group restarts; a "
                      "multi-node engine cannot continue with a rank missing."),
    ("targetPort", "The container port vLLM listens on (--port)."),
    ("metrics", "Scale on queue depth (vllm:num_requests_waiting via a metrics adapter, which renames the colon), "
                "not CPU: a GPU-bound server's CPU does not rise with load."),
    ("stabilizationWindowSeconds", "Scale down slowly: a replica takes minutes to come back."),
]


def _walk(node: yaml.Node, path: tuple[str, ...], out: list[tuple[tuple[str, ...], yaml.Node, yaml.Node]]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                out.append(((*path, key.value), key, value))
                _walk(value, (*path, key.value), out)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _walk(item, path, out)


def annotate(text: str) -> list[Note]:
    """A note for every field of ``text`` that matters to an inference server, with its line."""
    notes = []
    for doc in parse(text):
        pairs: list[tuple[tuple[str, ...], yaml.Node, yaml.Node]] = []
        _walk(doc, (), pairs)
        for path, key, value in pairs:
            name = ".".join(path[-2:])
            note = next((n for field, n in NOTES if field in (name, path[-1])), None)
            if path == ("kind",):
                note = KIND_NOTES.get(_scalar(value) or "")
            elif path[-1] == "mountPath":
                note = MOUNT_NOTES.get(_scalar(value) or "")
            elif path[-1] == "name" and _scalar(value) == "HF_TOKEN":
                note = dict(NOTES)["HF_TOKEN"]
            elif path[-1] == "replicas" and len(path) > 2:
                note = None
            if note:
                notes.append(Note(_line(key), ".".join(path), note))
    return notes


# ---------------------------------------------------------------- the checker


def _flag(args: list[str], flag: str, default: int) -> int:
    """The value of ``flag`` in container args (separate items, "--flag=N", or inside a shell command string)."""
    tokens = [token.strip("\"'") for arg in args for token in arg.split()]
    for index, token in enumerate(tokens):
        name, _, inline = token.partition("=")
        if name == flag:
            value = inline or (tokens[index + 1] if index + 1 < len(tokens) else "")
            return int(value) if value.isdigit() else default
    return default


def check(text: str, *, load_s: float = 600, gpu_taint: str = "nvidia.com/gpu") -> list[Finding]:
    """The mistakes in ``text``, in line order (see the module docstring)."""
    findings: list[Finding] = []
    for doc in parse(text):
        kind = _scalar(_get(doc, "kind")) or ""
        size = _number(_get(doc, "spec", "leaderWorkerTemplate", "size")) or 1
        for path in POD_SPECS.get(kind, []):
            pod = _get(doc, *path)
            if pod is not None:
                findings += _check_pod(pod, ".".join(path), load_s=load_s, gpu_taint=gpu_taint,
                                       nodes=int(size) if kind == "LeaderWorkerSet" else 1,
                                       leader="leaderTemplate" in path or kind != "LeaderWorkerSet")
    return sorted(findings, key=lambda f: (f.line, f.field))


def _check_pod(pod: yaml.Node, where: str, *, load_s: float, gpu_taint: str, nodes: int,
               leader: bool) -> list[Finding]:
    findings: list[Finding] = []
    gpus_in_pod = 0
    shm = any(_scalar(_get(v, "name")) and _scalar(_get(v, "emptyDir", "medium")) == "Memory"
              and any(_scalar(_get(m, "mountPath")) == "/dev/shm" and _scalar(_get(m, "name")) == _scalar(_get(v, "name"))
                      for c in _items(_get(pod, "containers")) for m in _items(_get(c, "volumeMounts")))
              for v in _items(_get(pod, "volumes")))
    for index, container in enumerate(_items(_get(pod, "containers"))):
        base = f"{where}.containers[{index}]"
        resources = _get(container, "resources")
        for resource in GPU_RESOURCES:
            request, limit = _get(resources, "requests", resource), _get(resources, "limits", resource)
            if request is not None and limit is None:
                findings.append(Finding(_line(request), "error", f"{base}.resources.requests.{resource}",
                                        f"{resource} is requested without a limit: Kubernetes refuses an extended "
                                        "resource request without an equal limit"))
            elif request is not None and limit is not None and _number(request) != _number(limit):
                findings.append(Finding(_line(limit), "error", f"{base}.resources.limits.{resource}",
                                        f"{resource} request {_scalar(request)} differs from limit {_scalar(limit)}: "
                                        "for extended resources they must be equal"))
            elif limit is not None and request is None:
                findings.append(Finding(_line(limit), "warning", f"{base}.resources.limits.{resource}",
                                        f"{resource} limit without a request: the request defaults to the limit; "
                                        "write both so the scheduler's view is explicit"))
            count = _number(limit if limit is not None else request)
            gpus_in_pod += int(count or 0)
        args = [_scalar(a) or "" for a in _items(_get(container, "command")) + _items(_get(container, "args"))]
        tp = max(_flag(args, "--tensor-parallel-size", 1), _flag(args, "-tp", 1))
        pp = _flag(args, "--pipeline-parallel-size", 1)
        dp = _flag(args, "--data-parallel-size", 1)
        gpus = int(_number(_get(resources, "limits", "nvidia.com/gpu")) or _number(_get(resources, "limits", "amd.com/gpu"))
                   or _number(_get(resources, "requests", "nvidia.com/gpu")) or 0)
        serves = any("vllm" in a for a in args) or "vllm" in (_scalar(_get(container, "image")) or "")
        if serves and leader and gpus and tp * pp * dp != gpus * nodes:
            ranks = f" × --data-parallel-size {dp}" if dp > 1 else ""
            findings.append(Finding(_line(_get(container, "args") or container), "error", f"{base}.args",
                                    f"--tensor-parallel-size {tp} × --pipeline-parallel-size {pp}{ranks} = "
                                    f"{tp * pp * dp} GPUs, but the replica has {gpus * nodes} ({gpus} per pod × "
                                    f"{nodes} pod(s))"))
        if serves and (tp > 1 or gpus > 1) and not shm:
            findings.append(Finding(_line(container), "error", f"{base}.volumeMounts",
                                    f"tensor parallelism over {max(tp, gpus)} GPUs without a memory-backed /dev/shm: "
                                    f"the container default is {SHM_DEFAULT_MIB} MiB and NCCL fails to allocate its "
                                    "segments; mount an emptyDir with medium: Memory at /dev/shm"))
        findings += _check_probes(container, base, load_s=load_s, leader=leader, serves=serves)
        image = _scalar(_get(container, "image")) or ""
        if image and (image.endswith(":latest") or ":" not in image.rsplit("/", 1)[-1]):
            findings.append(Finding(_key_line(container, "image"), "warning", f"{base}.image",
                                    f"image {image} is not pinned: a restart can pull a release whose flags differ"))
    if gpus_in_pod:
        tolerated = any(
            (_scalar(_get(t, "operator")) == "Exists" and not _scalar(_get(t, "key")))
            or (_scalar(_get(t, "key")) == gpu_taint and _scalar(_get(t, "effect")) in (None, "", "NoSchedule"))
            for t in _items(_get(pod, "tolerations")))
        if not tolerated:
            findings.append(Finding(_key_line(pod, "containers"), "warning", f"{where}.tolerations",
                                    f"GPUs requested but no toleration for the GPU pool's taint {gpu_taint}:NoSchedule: "
                                    "on a tainted pool the pod stays Pending with \"untolerated taint\""))
    return findings


def _probe_budget(probe: yaml.Node) -> float:
    """Seconds before the kubelet acts: initialDelaySeconds + periodSeconds × failureThreshold (defaults 0, 10, 3)."""
    delay = _number(_get(probe, "initialDelaySeconds")) or 0
    period = _number(_get(probe, "periodSeconds")) or 10
    failures = _number(_get(probe, "failureThreshold")) or 3
    return delay + period * failures


def _check_probes(container: yaml.Node, base: str, *, load_s: float, leader: bool, serves: bool) -> list[Finding]:
    findings = []
    startup, liveness = _get(container, "startupProbe"), _get(container, "livenessProbe")
    readiness = _get(container, "readinessProbe")
    if startup is not None and _probe_budget(startup) < load_s:
        findings.append(Finding(_key_line(container, "startupProbe"), "error", f"{base}.startupProbe",
                                f"the startupProbe gives up after {_probe_budget(startup):g} s, before a {load_s:g} s "
                                "model load ends: the container is killed and the load starts over"))
    if liveness is not None and startup is None and _probe_budget(liveness) < load_s:
        findings.append(Finding(_key_line(container, "livenessProbe"), "error", f"{base}.livenessProbe",
                                f"the livenessProbe restarts the container after {_probe_budget(liveness):g} s "
                                f"(initialDelaySeconds + periodSeconds × failureThreshold), before a {load_s:g} s "
                                "model load ends, and there is no startupProbe to hold it off: a restart loop"))
    if serves and leader and readiness is None:
        findings.append(Finding(_line(container), "warning", f"{base}.readinessProbe",
                                "no readinessProbe: the pod joins the Service before the engine answers, and "
                                "requests fail during every start"))
    return findings
