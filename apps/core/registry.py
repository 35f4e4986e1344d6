"""The Lab's pages: one list that the backend validates content against (chapters and glossary terms link to
simulators by name) and that the web client reads (frontend/src/generated/lab-pages.json, written by
`manage.py export_lab_pages` and checked by the tests)."""

from __future__ import annotations

from apps.core.validation import string_list_error

LAB_PAGES: tuple[tuple[str, str], ...] = (
    ("kv-cache", "KV cache"),
    ("fit", "Will it fit"),
    ("step-time", "Step time"),
    ("throughput-latency", "Throughput–latency"),
    ("capacity", "Capacity & cost"),
    ("speculative", "Speculative decoding"),
    ("collectives", "Collectives"),
    ("paged-kv", "Paged KV"),
    ("prefix-cache", "Prefix caching"),
    ("moe", "MoE load"),
    ("request-walk", "Request walk"),
    ("serve-config", "vllm serve"),
    ("engine", "Engine simulation"),
    ("sweeps", "Sweeps"),
    ("k8s-pending", "Pending-pod debugger"),
    ("k8s-quota-gates", "Quota gates"),
    ("k8s-rotation", "Node rotation"),
    ("k8s-manifest", "Manifest explorer"),
)
SIMULATORS = frozenset(name for name, _ in LAB_PAGES)


def lab_pages_document() -> list[dict[str, str]]:
    """What the web client reads: name, title and the page's path."""
    return [{"name": name, "title": title, "path": f"/lab/{name}"} for name, title in LAB_PAGES]


def simulator_errors(names) -> list[str]:
    """Why a list of simulator names (a chapter's or a term's links) is not acceptable, or []."""
    problem = string_list_error(names)
    if problem:
        return [problem]
    unknown = [name for name in names if name not in SIMULATORS]
    if unknown:
        return [f"unknown simulator{'s' if len(unknown) > 1 else ''}: {', '.join(repr(n) for n in unknown)}; "
                f"use one of {', '.join(sorted(SIMULATORS))}"]
    return []
