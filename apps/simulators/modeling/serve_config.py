"""`vllm serve` command line and a Kubernetes Deployment for a model/GPU/workload.

Flags follow the vLLM engine arguments documentation (docs.vllm.ai, "Engine
Arguments"); every flag comes with a one-line reason, and every flag is listed with
its source in fixtures/vllm-flags.yaml. The layout (modeling.parallel) is written as
`--tensor-parallel-size`, `--pipeline-parallel-size` and `--data-parallel-size` (the
last two when above 1) and `--enable-expert-parallel` (when EP = TP · DP > 1).

The deployment needs TP · PP · DP GPUs. Up to one node (GPUS_PER_NODE) it is one pod
requesting all of them, `nvidia.com/gpu` (or `amd.com/gpu`) equal to TP · PP · DP;
one `vllm serve` starts the DP engine cores itself. Past one node it must fill whole
nodes and becomes a LeaderWorkerSet of GPUS_PER_NODE-GPU pods joined into a Ray
cluster, launched from the leader:
- DP 1 (TP · PP spans the nodes): `--distributed-executor-backend ray`;
- DP > 1 with each DP rank's TP · PP GPUs inside one node (TP · PP divides
  GPUS_PER_NODE): `--data-parallel-size-local` ranks per node and
  `--data-parallel-backend ray`, which places the remote ranks on the Ray nodes
  (vLLM "Data Parallel Deployment", internal load balancing).
Not written: DP ranks that themselves span nodes (vLLM needs VLLM_RAY_DP_PACK_STRATEGY=span
for that), and one pod per DP rank with an external load balancer; such a layout is
refused naming data_parallel. Every pod mounts a memory-backed /dev/shm (NCCL/PyTorch
need more shared memory than the container default of 64 MiB) and traffic is gated on
vLLM's /health endpoint; with a Service and an HPA (k8s_manifest.serving_manifests,
annotated in the manifest explorer).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from .errors import ModelInputError
from .k8s_manifest import serving_manifests
from .memory import tp_is_valid
from .parallel import GPUS_PER_NODE, Parallelism, parallelism
from .specs import DTYPE_BYTES, GPUSpec, ModelSpec
from .vllm_defaults import GPU_MEMORY_UTILIZATION

QUANTIZATION_FLAG = {"fp8": "fp8", "int8": None, "int4": None, "mxfp4": None}
DEFAULT_IMAGE = {"nvidia": "vllm/vllm-openai:v0.33.0", "amd": "rocm/vllm:latest"}


@dataclass(frozen=True)
class ServeConfig:
    command: str
    flags: list[dict]
    kubernetes_yaml: str
    derivation: str


def vllm_serve_config(
    model: ModelSpec,
    gpu: GPUSpec,
    *,
    tp: int = 1,
    pp: int = 1,
    dp: int = 1,
    ep: int = 1,
    max_model_len: int = 8192,
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION,
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    max_num_seqs: int = 256,
    max_num_batched_tokens: int = 8192,
    enable_prefix_caching: bool = True,
    port: int = 8000,
    image: str | None = None,
) -> ServeConfig:
    """Build the command line, explained flags and a Deployment YAML string."""
    _validate(model, tp, max_model_len, gpu_memory_utilization, weight_dtype, kv_dtype, max_num_seqs, port)
    par = parallelism(model, tp=tp, pp=pp, dp=dp, ep=ep)
    gpu.peak_flops(weight_dtype)  # refuses fp4 on a GPU without FP4 tensor cores
    flags = [*_layout_flags(model, par),
             *_flags(max_model_len, gpu_memory_utilization, weight_dtype, kv_dtype, max_num_seqs,
                     max_num_batched_tokens, enable_prefix_caching, port)]
    args = ["vllm", "serve", model.hf_id]
    for f in flags:
        args.append(f["flag"])
        if f["value"] is not None:
            args.append(str(f["value"]))
    command = " ".join(shlex.quote(a) for a in args)
    yaml_text = serving_manifests(
        name=f"vllm-{model.slug.replace('.', '-')}", model_id=model.hf_id, args=args[2:], tp=tp, pp=pp, dp=dp,
        gpus_per_node=GPUS_PER_NODE, port=port, image=image or DEFAULT_IMAGE.get(gpu.vendor, DEFAULT_IMAGE["nvidia"]),
        resource="amd.com/gpu" if gpu.vendor == "amd" else "nvidia.com/gpu")
    derivation = f"{len(flags)} flags for {model.name} on {par.describe()} of {gpu.name}, {_pods(par)}: " + "; ".join(
        f"{f['flag']}{'' if f['value'] is None else ' ' + str(f['value'])} ({f['why']})" for f in flags)
    return ServeConfig(command, flags, yaml_text, derivation)


def _validate(model, tp, max_model_len, util, weight_dtype, kv_dtype, max_num_seqs, port) -> None:
    if tp not in (1, 2, 4, 8, 16) or not tp_is_valid(model, tp):
        raise ModelInputError("tp", "must be 1, 2, 4, 8 or 16 and divide the model's attention heads")
    if not 1 <= max_model_len <= model.max_position_embeddings:
        raise ModelInputError("max_model_len", f"must be between 1 and {model.max_position_embeddings:,}")
    if not 0 < util <= 1:
        raise ModelInputError("gpu_memory_utilization", "must be in (0, 1]")
    for field, dt in (("weight_dtype", weight_dtype), ("kv_dtype", kv_dtype)):
        if dt not in DTYPE_BYTES:
            raise ModelInputError(field, f"unknown dtype {dt!r}")
    if kv_dtype not in ("bf16", "fp16", "fp8"):
        raise ModelInputError("kv_dtype", "vLLM KV cache dtype must be bf16, fp16 or fp8")
    if not 1 <= max_num_seqs <= 100_000:
        raise ModelInputError("max_num_seqs", "must be between 1 and 100,000")
    if not 1 <= port <= 65535:
        raise ModelInputError("port", "must be a TCP port")


def _pods(par: Parallelism) -> str:
    """How the deployment's GPUs are laid out in pods (see the module docstring)."""
    nodes = -(-par.gpus // GPUS_PER_NODE)
    if nodes == 1:
        return f"one pod with {par.gpus} GPU{'s' if par.gpus > 1 else ''}"
    return (f"a LeaderWorkerSet of {nodes} pods × {GPUS_PER_NODE} GPUs (needs the LeaderWorkerSet controller and Ray "
            "in the image; this builder keeps each data-parallel rank inside one node and serves one endpoint from "
            "the leader)")


def _layout_flags(model: ModelSpec, par: Parallelism) -> list[dict]:
    """The layout's flags, and the launch flags of a deployment spanning nodes (refused where the builder has no
    manifest for it, naming the field to change)."""
    flags = [{"flag": "--tensor-parallel-size", "value": par.tp,
              "why": "shard every layer over this many GPUs (needs NVLink-class links to pay off)"}]
    if par.pp > 1:
        flags.append({"flag": "--pipeline-parallel-size", "value": par.pp,
                      "why": f"split the {model.num_layers} layers into {par.pp} stages of about "
                             f"{-(-model.num_layers // par.pp)} layers, one after another; each GPU holds only its "
                             "stage's weights and KV, and only activations cross between stages"})
    if par.dp > 1:
        flags.append({"flag": "--data-parallel-size", "value": par.dp,
                      "why": f"{par.dp} engine ranks of {par.tp * par.pp} GPU(s), each with its own batch and KV cache "
                             "behind one endpoint; --max-num-seqs applies per rank"
                             + (" (attention data parallel: the MoE layers still span every rank)" if model.is_moe
                                else "")})
    if par.ep > 1:
        flags.append({"flag": "--enable-expert-parallel", "value": None,
                      "why": f"give each of the TP × DP = {par.ep} GPUs {(model.num_experts or 0) // par.ep} whole routed "
                             "experts (all-to-all dispatch and combine) instead of a 1/"
                             f"{par.ep} slice of every expert"})
    if par.gpus <= GPUS_PER_NODE:
        return flags
    if par.gpus % GPUS_PER_NODE:
        field = "data_parallel" if par.dp > 1 else "pipeline_parallel" if par.pp > 1 else "tp"
        raise ModelInputError(field, f"TP × PP × DP = {par.gpus} GPUs span nodes of {GPUS_PER_NODE}, so must fill "
                              "whole nodes")
    if par.dp == 1:
        flags.append({"flag": "--distributed-executor-backend", "value": "ray",
                      "why": f"the {par.gpus} GPUs span {par.gpus // GPUS_PER_NODE} nodes: the workers are Ray actors "
                             "on the cluster the LeaderWorkerSet's pods join"})
        return flags
    if GPUS_PER_NODE % (par.tp * par.pp):
        raise ModelInputError("data_parallel", f"each data-parallel rank's TP × PP = {par.tp * par.pp} GPUs must fit "
                              f"inside one node of {GPUS_PER_NODE} (and divide it) for a multi-node data-parallel "
                              "deployment; use more replicas instead")
    flags += [
        {"flag": "--data-parallel-size-local", "value": GPUS_PER_NODE // (par.tp * par.pp),
         "why": f"DP ranks per node: {GPUS_PER_NODE} GPUs / ({par.tp * par.pp} per rank)"},
        {"flag": "--data-parallel-backend", "value": "ray",
         "why": f"one command on the leader starts all {par.dp} ranks, the remote ones on the Ray cluster the "
                "LeaderWorkerSet's pods join"},
    ]
    return flags


def _flags(max_len, util, weight_dtype, kv_dtype, max_seqs, max_batched, prefix, port) -> list[dict]:
    flags = [
        {"flag": "--max-model-len", "value": max_len,
         "why": "longest prompt + output accepted; bounds the KV a single request may hold"},
        {"flag": "--gpu-memory-utilization", "value": util,
         "why": "fraction of GPU memory vLLM may use; what is left after weights and activations becomes KV cache"},
        {"flag": "--max-num-seqs", "value": max_seqs,
         "why": "cap on sequences decoded together; larger raises throughput and TPOT"},
        {"flag": "--max-num-batched-tokens", "value": max_batched,
         "why": "token budget per step (chunked prefill); smaller protects TPOT, larger speeds prefill"},
    ]
    quant = QUANTIZATION_FLAG.get(weight_dtype)
    if quant:
        flags.append({"flag": "--quantization", "value": quant,
                      "why": "quantize BF16 weights to FP8 at load time (halves weight memory and bytes per step)"})
    elif weight_dtype in ("int8", "int4", "mxfp4", "fp4"):
        flags.append({"flag": "--dtype", "value": "auto",
                      "why": f"{weight_dtype} needs a pre-quantized checkpoint (e.g. AWQ/GPTQ/MXFP4/NVFP4); vLLM reads its "
                             "quantization_config, so point the model id at that checkpoint"})
    if kv_dtype == "fp8":
        flags.append({"flag": "--kv-cache-dtype", "value": "fp8",
                      "why": "store K/V in 1 byte per element: twice the tokens fit in the same memory"})
    if prefix:
        flags.append({"flag": "--enable-prefix-caching", "value": None,
                      "why": "reuse KV blocks of shared prompt prefixes (system prompts, multi-turn chats)"})
    flags.append({"flag": "--port", "value": port, "why": "HTTP port of the OpenAI-compatible server"})
    return flags
