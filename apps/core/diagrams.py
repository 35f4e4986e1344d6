"""Live diagrams: the registry of diagram types and their parameters, and the parser of the ```diagram blocks that
place them in chapters. Pure data and text handling (no other first-party import), so the Markdown renderer, the
content loader and the authoring API can all read it."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A chapter places a diagram with a fenced block:   ```diagram kv-growth model=llama-3.1-8b gpu=h100-sxm
# Each type names the Lab page it opens (same parameter names as the Lab's query string) and the parameters an
# author may set; the web client reads this list (frontend/src/generated/diagrams.json, `manage.py export_diagrams`).

# The simulators' dtypes (apps.simulators.modeling.specs.DTYPE_BYTES, in its order; core imports no other app, so
# tests/simulators/test_vllm_defaults.py checks the two lists agree).
DTYPE_CHOICES = ("fp32", "bf16", "fp16", "fp8", "int8", "fp4", "int4", "mxfp4")
MODEL = {"kind": "model", "default": "llama-3.1-8b"}
GPU = {"kind": "gpu", "default": "h100-sxm"}


def _int(default: int, low: int, high: int) -> dict:
    return {"kind": "int", "default": default, "min": low, "max": high}


def _float(default: float, low: float, high: float) -> dict:
    return {"kind": "float", "default": default, "min": low, "max": high}


def _choice(default: str, choices) -> dict:
    return {"kind": "choice", "default": default, "choices": list(choices)}


DIAGRAMS: dict[str, dict] = {
    "tokenization": {
        "title": "From text to tokens to ids", "lab": "request-walk",
        "caption": "A BPE tokenizer splits text into pieces it has ids for; common words are one token, rare ones several.",
        "params": {"model": MODEL, "gpu": GPU},
    },
    "sampling": {
        "title": "Sampling the next token", "lab": "request-walk",
        "caption": "The model scores every token; temperature reshapes the probabilities, top-k and top-p cut the tail, and one token is drawn.",
        "params": {"temperature": _float(0.8, 0.1, 2.0), "top_k": _int(0, 0, 10), "top_p": _float(0.9, 0.05, 1.0)},
    },
    "kv-growth": {
        "title": "KV cache growth, layer by layer", "lab": "kv-cache",
        "caption": "Every token adds a K and a V vector to every layer; GQA, MLA and sliding windows change how much.",
        "params": {"model": MODEL, "context_tokens": _int(8192, 1, 1_048_576), "kv_dtype": _choice("bf16", DTYPE_CHOICES)},
    },
    "batching-stepper": {
        "title": "Continuous batching, step by step", "lab": "engine",
        "caption": "Each engine step the scheduler spends a token budget on the running requests and admits waiting ones while KV blocks last.",
        "params": {"model": MODEL, "gpu": GPU, "max_num_batched_tokens": _int(2048, 16, 131_072), "max_num_seqs": _int(32, 1, 1024),
                   "num_requests": _int(24, 1, 200), "arrival_rate_per_s": _int(20, 1, 1000),
                   "long_prefill_token_threshold": _int(0, 0, 131_072),
                   "scheduler_reserve_full_isl": _choice("true", ("true", "false"))},
    },
    "prefill-decode": {
        "title": "Prefill, then decode", "lab": "step-time",
        "caption": "Prefill processes the whole prompt in one compute-bound step; each decode step re-reads the weights and the cache for one token.",
        "params": {"model": MODEL, "gpu": GPU, "context_tokens": _int(2048, 1, 131_072), "batch_size": _int(1, 1, 1024)},
    },
    "roofline": {
        "title": "The roofline and this step", "lab": "step-time",
        "caption": "Arithmetic intensity (FLOPs per byte) decides whether a step waits on memory or on compute.",
        "params": {"model": MODEL, "gpu": GPU, "phase": _choice("decode", ("decode", "prefill")),
                   "batch_size": _int(8, 1, 1024), "context_tokens": _int(2048, 1, 131_072)},
    },
    "paged-blocks": {
        "title": "Paged KV blocks and the block table", "lab": "paged-kv",
        "caption": "Sequences take fixed-size blocks on demand; only the last block of each sequence is partly empty.",
        "params": {"model": MODEL, "block_size": _int(16, 1, 256), "kv_dtype": _choice("bf16", DTYPE_CHOICES)},
    },
    "memory-breakdown": {
        "title": "Where the GPU memory goes", "lab": "fit",
        "caption": "Weights are fixed; the KV cache grows with batch and context until the budget runs out.",
        "params": {"model": MODEL, "gpu": GPU, "batch_size": _int(16, 1, 1024), "context_tokens": _int(8192, 1, 1_048_576),
                   "weight_dtype": _choice("bf16", DTYPE_CHOICES), "tensor_parallel": _int(1, 1, 64)},
    },
    "speculative": {
        "title": "Speculative decoding: accept or reject", "lab": "speculative",
        "caption": "A draft proposes γ tokens; the target verifies them in one step and keeps the prefix it agrees with.",
        "params": {"acceptance_rate": _float(0.7, 0.0, 0.99), "draft_tokens": _int(4, 1, 16)},
    },
    "prefix-hash-chain": {
        "title": "Prefix caching: the block hash chain", "lab": "prefix-cache",
        "caption": "Each full block's hash chains its parent's hash, so a shared system prompt hits the same blocks.",
        "params": {"block_size": _int(16, 1, 256), "system_tokens": _int(128, 0, 4096), "user_tokens": _int(48, 1, 4096)},
    },
    "tp-allreduce": {
        "title": "Tensor parallel and its all-reduces", "lab": "collectives",
        "caption": "Each layer ends in an all-reduce of the activations; its cost grows with the message and the link.",
        "params": {"model": MODEL, "gpu": GPU, "tensor_parallel": _int(8, 2, 64), "batch_size": _int(16, 1, 4096)},
    },
    "token-cost": {
        "title": "The cost of a million tokens", "lab": "capacity",
        "caption": "GPU-hours divided by tokens served: the price of a GPU against how many tokens it produces within the SLO.",
        "params": {"model": MODEL, "gpu": GPU, "context_tokens": _int(1024, 1, 131_072), "output_tokens": _int(256, 1, 32_768)},
    },
    "moe-load": {
        "title": "Mixture of experts: load per expert", "lab": "moe",
        "caption": "The router sends each token to its top-k experts; skew overloads a few and drops tokens beyond capacity.",
        "params": {"num_experts": _int(64, 2, 512), "top_k": _int(2, 1, 16), "batch_size": _int(4096, 1, 1_000_000)},
    },
    "throughput-latency": {
        "title": "Throughput against latency", "lab": "throughput-latency",
        "caption": "Batching more requests raises tokens per second until each token's latency is what you pay for it.",
        "params": {"model": MODEL, "gpu": GPU, "context_tokens": _int(1024, 1, 131_072), "output_tokens": _int(256, 1, 32_768)},
    },
    "pipeline-bubbles": {
        "title": "Pipeline parallel and its bubbles", "lab": "step-time",
        "caption": "Stages wait for the first micro-batch to reach them and idle after the last leaves: (p − 1)/(m + p − 1) of the time.",
        "params": {"model": MODEL, "gpu": GPU, "pipeline_parallel": _int(4, 2, 16), "microbatches": _int(8, 1, 64),
                   "context_tokens": _int(2048, 1, 131_072)},
    },
    "ep-all-to-all": {
        "title": "Expert parallel: the all-to-all", "lab": "collectives",
        "caption": "With experts spread over GPUs, every MoE layer sends each token to its experts' GPUs and brings the results back.",
        "params": {"model": {"kind": "model", "default": "deepseek-v3"}, "gpu": GPU, "expert_parallel": _int(8, 2, 64),
                   "batch_size": _int(256, 1, 65_536)},
    },
    "pd-transfer": {
        "title": "Prefill/decode disaggregation: moving the KV cache", "lab": "kv-cache",
        "caption": "The prefill GPU computes the prompt's KV cache and ships it to a decode GPU; the link decides what that costs.",
        "params": {"model": MODEL, "gpu": GPU, "context_tokens": _int(8192, 1, 131_072), "kv_dtype": _choice("bf16", DTYPE_CHOICES)},
    },
    "autoscaling": {
        "title": "Autoscaling replicas against traffic", "lab": "capacity",
        "caption": "Replicas ordered when traffic rises serve only after their cold start; the gap is traffic over capacity.",
        "params": {"model": MODEL, "gpu": GPU, "peak_requests_per_s": _int(40, 1, 10_000), "context_tokens": _int(1024, 1, 131_072),
                   "output_tokens": _int(256, 1, 32_768), "cold_start_minutes": _int(8, 1, 30)},
    },
    "request-lifecycle": {
        "title": "A request's journey through the stack", "lab": "request-walk",
        "caption": "Client → gateway → router → engine scheduler → GPU → streamed tokens, with time spent in each stage.",
        "params": {"model": MODEL, "gpu": GPU, "context_tokens": _int(512, 1, 32_768), "output_tokens": _int(64, 1, 4096)},
    },
}


def diagrams_document() -> dict[str, dict]:
    """What the web client reads: each diagram's title, caption, Lab page and parameters."""
    return {name: {**spec, "lab_path": f"/lab/{spec['lab']}"} for name, spec in DIAGRAMS.items()}


DIAGRAM_FENCE = re.compile(r"^```diagram\b[ \t]*([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)


@dataclass(frozen=True)
class DiagramUse:
    """One ```diagram block: where it starts (1-based line in the text), its name and its parameters as written."""

    line: int
    name: str
    params: dict[str, object]
    errors: tuple[str, ...]
    span: tuple[int, int]


def _coerce(name: str, spec: dict, raw: str) -> tuple[object, str | None]:
    kind = spec["kind"]
    if kind in ("int", "float"):
        try:
            value: object = int(raw) if kind == "int" else float(raw)
        except ValueError:
            return None, f"parameter '{name}' must be {'an integer' if kind == 'int' else 'a number'}, not {raw!r}"
        if not spec["min"] <= value <= spec["max"]:  # type: ignore[operator]
            return None, f"parameter '{name}' must be between {spec['min']} and {spec['max']}"
        return value, None
    if kind == "choice" and raw not in spec["choices"]:
        return None, f"parameter '{name}' must be one of {', '.join(spec['choices'])}"
    return raw, None


def diagram_uses(text: str) -> list[DiagramUse]:
    """Every diagram directive in a Markdown text, parsed and checked against the registry (catalog slugs aside)."""
    uses = []
    for match in DIAGRAM_FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        words = match.group(1).split()
        errors: list[str] = []
        params: dict[str, object] = {}
        name = words[0] if words else ""
        spec = DIAGRAMS.get(name)
        if not name:
            errors.append(f"a diagram block names its diagram: ```diagram <name>; one of {', '.join(sorted(DIAGRAMS))}")
        elif spec is None:
            errors.append(f"unknown diagram '{name}'; use one of {', '.join(sorted(DIAGRAMS))}")
        if match.group(2).strip():
            errors.append("a diagram block has no body; put its parameters on the opening line")
        for word in words[1:]:
            key, sep, raw = word.partition("=")
            if not sep or not key or not raw:
                errors.append(f"diagram parameter {word!r} must be written name=value")
                continue
            if spec is None:
                continue
            if key not in spec["params"]:
                errors.append(f"unknown parameter '{key}' for diagram '{name}'; use {', '.join(spec['params']) or 'none'}")
                continue
            if key in params:
                errors.append(f"parameter '{key}' is given twice")
                continue
            value, problem = _coerce(key, spec["params"][key], raw)
            if problem:
                errors.append(problem)
            else:
                params[key] = value
        uses.append(DiagramUse(line, name, params, tuple(errors), match.span()))
    return uses


def diagram_errors(text: str, *, models=None, gpus=None) -> list[tuple[int, str]]:
    """(line, message) for every problem with the diagram blocks of a Markdown text; ``models``/``gpus``, when given,
    are the catalog slugs a model or GPU parameter may name."""
    problems = []
    for use in diagram_uses(text):
        problems += [(use.line, message) for message in use.errors]
        spec = DIAGRAMS.get(use.name)
        if spec is None:
            continue
        for key, value in use.params.items():
            kind = spec["params"][key]["kind"]
            known = models if kind == "model" else gpus if kind == "gpu" else None
            if known is not None and value not in known:
                problems.append((use.line, f"unknown {kind} '{value}' in diagram '{use.name}'; "
                                           f"the catalog has {', '.join(sorted(known))}"))
    return problems
