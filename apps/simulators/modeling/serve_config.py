"""`vllm serve` command line and a Kubernetes Deployment for a model/GPU/workload.

Flags follow the vLLM engine arguments documentation (docs.vllm.ai, "Engine
Arguments"); every flag comes with a one-line reason. The Deployment requests
`nvidia.com/gpu` (or `amd.com/gpu`) equal to TP, mounts a memory-backed /dev/shm
(NCCL/PyTorch need more shared memory than the container default of 64 MiB for
tensor parallelism) and gates traffic on vLLM's /health endpoint; with a Service
and an HPA (k8s_manifest.serving_manifests, annotated in the manifest explorer).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from .errors import ModelInputError
from .k8s_manifest import serving_manifests
from .memory import tp_is_valid
from .specs import DTYPE_BYTES, GPUSpec, ModelSpec

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
    max_model_len: int = 8192,
    gpu_memory_utilization: float = 0.9,
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
    gpu.peak_flops(weight_dtype)  # refuses fp4 on a GPU without FP4 tensor cores
    flags = _flags(model, tp, max_model_len, gpu_memory_utilization, weight_dtype, kv_dtype,
                   max_num_seqs, max_num_batched_tokens, enable_prefix_caching, port)
    args = ["vllm", "serve", model.hf_id]
    for f in flags:
        args.append(f["flag"])
        if f["value"] is not None:
            args.append(str(f["value"]))
    command = " ".join(shlex.quote(a) for a in args)
    yaml_text = serving_manifests(
        name=f"vllm-{model.slug.replace('.', '-')}", model_id=model.hf_id, args=args[2:], tp=tp, port=port,
        image=image or DEFAULT_IMAGE.get(gpu.vendor, DEFAULT_IMAGE["nvidia"]),
        resource="amd.com/gpu" if gpu.vendor == "amd" else "nvidia.com/gpu")
    derivation = f"{len(flags)} flags for {model.name} on {tp} × {gpu.name}: " + "; ".join(
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


def _flags(model, tp, max_len, util, weight_dtype, kv_dtype, max_seqs, max_batched, prefix, port) -> list[dict]:
    flags = [
        {"flag": "--tensor-parallel-size", "value": tp,
         "why": "shard every layer over this many GPUs (needs NVLink-class links to pay off)"},
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
