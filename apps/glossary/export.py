"""Glossary terms back to fixtures/glossary/<file>.yaml (each term to the file it was loaded from)."""

from collections import defaultdict
from pathlib import Path

from apps.core.content_export import dump_yaml, target_file, with_status, write_text
from apps.glossary.models import Term

# Terms created in the admin (no file yet) are collected here.
DEFAULT_FILE = "authored.yaml"


def term_row(term: Term) -> dict:
    row = {
        "slug": term.slug,
        "term": term.term,
        "aliases": term.aliases,
        "definition": term.definition,
        "explanation": term.explanation,
        "related": sorted(other.slug for other in term.related.all()),
        "chapters": sorted(chapter.slug for chapter in term.chapters.all()),
        "simulators": term.simulators,
    }
    return with_status(row, term.status)


def export_terms(root: Path, written: list[Path]) -> None:
    by_file: dict[str, list[dict]] = defaultdict(list)
    for term in Term.objects.live().prefetch_related("related", "chapters").order_by("id"):
        by_file[target_file(term.source_file, "glossary", DEFAULT_FILE)].append(term_row(term))
    for name, rows in sorted(by_file.items()):
        write_text(root / name, dump_yaml(rows), written)
