"""Loader steps for glossary terms (fixtures/glossary/*.yaml)."""

from apps.core.content import (
    LoadContext,
    entry_status,
    load_yaml_list,
    require,
    set_m2m_if_changed,
    slug_lookup,
    sync_by_slug,
)
from apps.core.registry import SIMULATORS
from apps.glossary.models import Term


def load_terms(ctx: LoadContext) -> None:
    rows = []
    ctx.term_links = {}
    for path in sorted((ctx.root / "glossary").glob("*.yaml")):
        for entry in load_yaml_list(ctx, path):
            status = entry_status(ctx, path, entry)
            if not require(ctx, path, entry, {"slug": str, "term": str, "definition": str}) or status is None:
                continue
            aliases = entry.get("aliases") or []
            if not isinstance(aliases, list):
                ctx.error(path, entry["__line__"], "aliases must be a list")
                continue
            simulators = list(entry.get("simulators") or [])
            for name in simulators:
                if name not in SIMULATORS:
                    ctx.error(path, entry["__line__"], f"unknown simulator '{name}'")
            values = {
                "term": entry["term"],
                "aliases": [str(alias) for alias in aliases],
                "definition": entry["definition"].strip(),
                "explanation": (entry.get("explanation") or "").strip(),
                "simulators": simulators,
                "status": status,
            }
            ctx.term_links[entry["slug"]] = (path, entry["__line__"], list(entry.get("related") or []), list(entry.get("chapters") or []))
            rows.append((slug_lookup(ctx, path, entry), values, path, entry["__line__"]))
    sync_by_slug(ctx, Term, "terms", rows)


def link_terms(ctx: LoadContext) -> None:
    for slug, (path, line, related, chapters) in getattr(ctx, "term_links", {}).items():
        term = ctx.lookup("terms", slug)
        related_objects = []
        for name in related:
            other = ctx.lookup("terms", name)
            if other is None:
                ctx.error(path, line, f"related term '{name}' does not exist")
            elif other != term:
                related_objects.append(other)
        chapter_objects = []
        for name in chapters:
            chapter = ctx.lookup("chapters", name)
            if chapter is None:
                ctx.error(path, line, f"chapter '{name}' does not exist")
            else:
                chapter_objects.append(chapter)
        if not chapter_objects:
            ctx.error(path, line, f"term '{slug}' links to no chapter")
        set_m2m_if_changed(term.related, related_objects)
        set_m2m_if_changed(term.chapters, chapter_objects)
