"""Loader steps for parts (fixtures/parts.yaml) and chapters (fixtures/chapters/<part>/<NN>-<slug>.md)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from apps.core.content import (
    LoadContext,
    clean,
    entry_status,
    load_yaml_list,
    parse_yaml,
    require,
    set_m2m_if_changed,
    slug_lookup,
    sync_by_slug,
)
from apps.core.diagrams import diagram_errors
from apps.core.registry import SIMULATORS
from apps.courses.graph import find_cycle
from apps.courses.models import Chapter, Level, Part
from apps.courses.services import glossary_entries, render_chapter_body

FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n(.*)\Z", re.S)


def load_parts(ctx: LoadContext) -> None:
    path = ctx.root / "parts.yaml"
    rows = []
    for entry in load_yaml_list(ctx, path):
        status = entry_status(ctx, path, entry)
        if require(ctx, path, entry, {"slug": str, "title": str, "order": int}) and status is not None:
            values = {"title": entry["title"], "order": entry["order"], "summary": entry.get("summary") or "", "status": status}
            rows.append((slug_lookup(ctx, path, entry), values, path, entry["__line__"]))
    sync_by_slug(ctx, Part, "parts", rows)


def read_chapter_file(ctx: LoadContext, path: Path) -> tuple[dict, str] | None:
    text = path.read_text(encoding="utf-8")
    match = FRONT_MATTER.match(text)
    if not match:
        ctx.error(path, 1, "a chapter file starts with YAML front matter between '---' lines")
        return None
    meta = parse_yaml(ctx, path, match.group(1), line_offset=1)
    if meta is None:
        return None
    if not isinstance(meta, dict):
        ctx.error(path, 2, "front matter must be a mapping")
        return None
    return meta, match.group(2)


def load_chapters(ctx: LoadContext) -> None:
    rows = []
    ctx.chapter_links = {}
    for path in sorted((ctx.root / "chapters").glob("*/*.md")):
        parsed = read_chapter_file(ctx, path)
        if parsed is None:
            continue
        meta, body = parsed
        line = meta["__line__"]
        if not require(ctx, path, meta, {"slug": str, "title": str, "part": str, "order": int, "summary": str}):
            continue
        status = entry_status(ctx, path, meta)
        if status is None:
            continue
        part = ctx.lookup("parts", meta["part"])
        if part is None:
            ctx.error(path, line, f"unknown part '{meta['part']}'")
            continue
        if meta.get("level", "core") not in Level.values:
            ctx.error(path, line, f"level must be one of {', '.join(Level.values)}")
            continue
        objectives = meta.get("objectives") or []
        if not isinstance(objectives, list) or not all(isinstance(item, str) for item in objectives):
            ctx.error(path, line, "objectives must be a list of strings")
            continue
        sources = meta.get("sources") or []
        if not isinstance(sources, list) or not all(isinstance(item, str) and item.strip() for item in sources):
            ctx.error(path, line, "sources must be a list of non-empty strings (a file and function at a release, a paper, a datasheet)")
            continue
        key_numbers = [clean(item) for item in meta.get("key_numbers") or []]
        _check_diagrams(ctx, path, body)
        unknown_simulators = [name for name in meta.get("simulators") or [] if name not in SIMULATORS]
        if unknown_simulators:
            ctx.error(path, line, f"unknown simulators: {', '.join(unknown_simulators)}")
        values = {
            "part": part,
            "order": meta["order"],
            "title": meta["title"],
            "summary": meta["summary"],
            "minutes": int(meta.get("minutes") or 10),
            "level": meta.get("level", "core"),
            "objectives": objectives,
            "key_numbers": key_numbers,
            "body": body.strip() + "\n",
            "simulators": list(meta.get("simulators") or []),
            "sources": sources,
            "status": status,
        }
        ctx.chapter_links[meta["slug"]] = (path, line, list(meta.get("prerequisites") or []), list(meta.get("glossary") or []))
        rows.append((slug_lookup(ctx, path, meta), values, path, line))
    # Orders may be reshuffled between loads; free the (part, order) pairs first.
    _avoid_order_collisions(rows)
    sync_by_slug(ctx, Chapter, "chapters", rows)


def _catalog_slugs(ctx: LoadContext) -> tuple[set[str], set[str]]:
    """The model and GPU slugs of the catalog files (loaded after chapters, so read from the files here)."""
    cached = getattr(ctx, "diagram_catalog", None)
    if cached is None:
        slugs = []
        for name in ("models.yaml", "gpus.yaml"):
            path = ctx.root / "catalog" / name
            entries = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else []
            slugs.append({entry["slug"] for entry in entries or [] if isinstance(entry, dict) and entry.get("slug")})
        cached = ctx.diagram_catalog = (slugs[0], slugs[1])
    return cached


def _check_diagrams(ctx: LoadContext, path: Path, body: str) -> None:
    """Each ```diagram block names a registered diagram, its parameters and catalog slugs; errors carry the file line."""
    if "```diagram" not in body:
        return
    text = path.read_text(encoding="utf-8")
    offset = text[: len(text) - len(body)].count("\n")
    models, gpus = _catalog_slugs(ctx)
    for line, message in diagram_errors(body, models=models, gpus=gpus):
        ctx.error(path, offset + line, message)


def _avoid_order_collisions(rows) -> None:
    wanted = {(values["part"].pk, values["order"]): lookup["slug"] for lookup, values, _, _ in rows}
    for chapter in Chapter.objects.all():
        owner = wanted.get((chapter.part_id, chapter.order))
        if owner is not None and owner != chapter.slug:
            Chapter.objects.filter(pk=chapter.pk).update(order=chapter.order + 100000)


def link_chapters(ctx: LoadContext) -> None:
    """Prerequisites (checked for cycles) and glossary links, then the rendered body with hover terms."""
    edges: dict[str, list[str]] = {}
    for slug, (path, line, prerequisites, terms) in getattr(ctx, "chapter_links", {}).items():
        chapter = ctx.lookup("chapters", slug)
        prerequisite_objects = []
        for name in prerequisites:
            other = ctx.lookup("chapters", name)
            if other is None:
                ctx.error(path, line, f"prerequisite '{name}' is not a chapter")
            elif other == chapter:
                ctx.error(path, line, "a chapter cannot be its own prerequisite")
            else:
                prerequisite_objects.append(other)
        edges[slug] = [other.slug for other in prerequisite_objects]
        term_objects = []
        for name in terms:
            term = ctx.lookup("terms", name)
            if term is None:
                ctx.error(path, line, f"glossary term '{name}' does not exist")
            else:
                term_objects.append(term)
        set_m2m_if_changed(chapter.prerequisites, prerequisite_objects)
        set_m2m_if_changed(chapter.glossary_terms, term_objects)
    cycle = find_cycle(edges)
    if cycle:
        titles = [ctx.lookup("chapters", slug).title for slug in cycle]
        path, line = ctx.chapter_links[cycle[0]][:2]
        ctx.error(path, line, "prerequisites form a cycle: " + " -> ".join(f"'{title}'" for title in titles))
    entries = glossary_entries()
    for slug in getattr(ctx, "chapter_links", {}):
        chapter = ctx.lookup("chapters", slug)
        rendered = render_chapter_body(chapter.body, entries)
        if rendered != chapter.body_html:
            Chapter.objects.filter(pk=chapter.pk).update(body_html=rendered)
