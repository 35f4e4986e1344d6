"""Validation of authored chapters, shared by ``Chapter.clean()`` (admin forms, API) and the authoring API.

Field checks on the row itself live in ``chapter_errors`` (what ``clean()`` can see); links are many-to-many
and only known after the form or request is parsed, so ``prerequisite_cycle`` checks a proposed set of
prerequisites against the whole graph with the change applied.
"""

from __future__ import annotations

from collections.abc import Iterable

from apps.core.diagrams import diagram_errors
from apps.core.registry import simulator_errors
from apps.core.validation import markdown_error, string_list_error
from apps.courses.graph import find_cycle
from apps.simulators.models import GPU, ModelConfig


def key_number_errors(value) -> list[str]:
    if not isinstance(value, list):
        return ["must be a list of {label, value, unit, source}"]
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            return [f"entry {index} must be a mapping with label and value"]
        for name in ("label", "value"):
            if not isinstance(item.get(name), str) or not item[name].strip():
                return [f"entry {index} needs a non-empty {name}"]
        extra = set(item) - {"label", "value", "unit", "source"}
        if extra:
            return [f"entry {index} has unknown keys: {', '.join(sorted(extra))}"]
    return []


def catalog_slugs() -> dict[str, set[str]]:
    """The model and GPU slugs a diagram may name (the simulator catalog as loaded)."""
    return {"models": set(ModelConfig.objects.values_list("slug", flat=True)),
            "gpus": set(GPU.objects.values_list("slug", flat=True))}


def chapter_errors(chapter) -> dict[str, list[str]]:
    """Errors by model field name for what a Chapter row holds itself."""
    errors: dict[str, list[str]] = {}
    problem = markdown_error(chapter.body)
    if problem:
        errors["body"] = [f"body {problem}"]
    elif "```diagram" in chapter.body:
        problems = diagram_errors(chapter.body, **catalog_slugs())
        if problems:
            errors["body"] = [f"line {line}: {message}" for line, message in problems]
    problem = markdown_error(chapter.summary)
    if problem:
        errors["summary"] = [f"summary {problem}"]
    problem = string_list_error(chapter.objectives)
    if problem:
        errors["objectives"] = [f"objectives {problem}"]
    if key_number_errors(chapter.key_numbers):
        errors["key_numbers"] = key_number_errors(chapter.key_numbers)
    if simulator_errors(chapter.simulators):
        errors["simulators"] = simulator_errors(chapter.simulators)
    return errors


def prerequisite_cycle(slug: str, prerequisites: Iterable[str], existing: Iterable[tuple[str, str]],
                       previous_slug: str | None = None) -> list[str] | None:
    """The cycle the prerequisites graph would have with ``slug``'s prerequisites replaced, or None.

    ``existing`` holds today's (chapter, prerequisite) slug pairs; ``previous_slug`` is the chapter's slug before
    a rename (edges pointing at it follow the rename).
    """
    old = previous_slug or slug
    edges: dict[str, list[str]] = {}
    for chapter_slug, prerequisite_slug in existing:
        if chapter_slug == old:
            continue
        edges.setdefault(chapter_slug, []).append(slug if prerequisite_slug == old else prerequisite_slug)
    edges[slug] = list(prerequisites)
    return find_cycle(edges)
