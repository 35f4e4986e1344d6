"""Small builders for curriculum content (plain functions: the models are simple)."""

from apps.courses.models import Chapter, Part
from apps.glossary.models import Term


def make_part(slug: str, order: int, **fields) -> Part:
    return Part.objects.create(slug=slug, title=fields.pop("title", slug.title()), order=order, **fields)


def make_chapter(slug: str, part: Part, order: int, prerequisites=(), **fields) -> Chapter:
    defaults = {"title": slug.replace("-", " ").title(), "summary": f"About {slug}.", "body": f"## {slug}\n\nText."}
    chapter = Chapter.objects.create(slug=slug, part=part, order=order, **{**defaults, **fields})
    chapter.prerequisites.set(prerequisites)
    return chapter


def make_term(slug: str, term: str, definition: str = "A definition.", **fields) -> Term:
    return Term.objects.create(slug=slug, term=term, definition=definition, **fields)
