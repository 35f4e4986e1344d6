"""Parts and chapters back to fixtures/parts.yaml and fixtures/chapters/<part>/<NN>-<slug>.md."""

from pathlib import Path

from apps.core.content_export import dump_yaml, with_status, write_text
from apps.courses.models import Chapter, Part


def export_parts(root: Path, written: list[Path]) -> None:
    rows = [
        with_status({"slug": part.slug, "title": part.title, "order": part.order, "summary": part.summary}, part.status)
        for part in Part.objects.live().order_by("order", "slug")
    ]
    write_text(root / "parts.yaml", dump_yaml(rows), written)


def chapter_meta(chapter: Chapter) -> dict:
    meta = {
        "slug": chapter.slug,
        "title": chapter.title,
        "part": chapter.part.slug,
        "order": chapter.order,
        "summary": chapter.summary,
        "minutes": chapter.minutes,
        "level": chapter.level,
        "objectives": chapter.objectives,
        "key_numbers": chapter.key_numbers,
        "prerequisites": sorted(p.slug for p in chapter.prerequisites.all()),
        "simulators": chapter.simulators,
        "glossary": sorted(term.slug for term in chapter.glossary_terms.all()),
    }
    if chapter.sources:
        meta["sources"] = chapter.sources
    return with_status(meta, chapter.status)


def export_chapters(root: Path, written: list[Path]) -> None:
    chapters = Chapter.objects.live().select_related("part").prefetch_related("prerequisites", "glossary_terms")
    for chapter in chapters.order_by("part__order", "order", "slug"):
        path = root / "chapters" / chapter.part.slug / f"{chapter.order:02d}-{chapter.slug}.md"
        write_text(path, f"---\n{dump_yaml(chapter_meta(chapter))}---\n{chapter.body}", written)
