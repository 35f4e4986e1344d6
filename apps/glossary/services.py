"""Glossary reads: the filtered term list and one term with its links."""

from __future__ import annotations

from django.db.models import Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404

from apps.courses.rendering import render_markdown
from apps.glossary.models import Term


def term_list(*, user, q: str = "") -> QuerySet[Term]:
    """Terms visible to the user; ``q`` is a case-insensitive substring of the term or one of its aliases."""
    terms = Term.objects.visible_to(user).order_by("term")
    q = q.strip()
    if not q:
        return terms
    # Aliases are a JSON list; matching on its text form is portable across SQLite and PostgreSQL.
    alias_hits = [term.pk for term in terms.exclude(aliases=[]) if any(q.lower() in alias.lower() for alias in term.aliases)]
    return terms.filter(Q(term__icontains=q) | Q(pk__in=alias_hits))


def term_get(*, user, slug: str) -> Term:
    from apps.courses.services import chapter_queryset

    queryset = Term.objects.visible_to(user).prefetch_related(
        Prefetch("related", queryset=Term.objects.visible_to(user).order_by("term")),
        Prefetch("chapters", queryset=chapter_queryset(user).order_by("part__order", "order")),
    )
    return get_object_or_404(queryset, slug=slug)


def term_detail(term: Term) -> dict:
    return {
        "slug": term.slug,
        "term": term.term,
        "aliases": term.aliases,
        "definition": term.definition,
        "explanation_html": render_markdown(term.explanation),
        "related": [{"slug": other.slug, "term": other.term, "definition": other.definition} for other in term.related.all()],
        "chapters": [{"slug": chapter.slug, "title": chapter.title} for chapter in term.chapters.all()],
        "simulators": [{"name": name, "url": f"/lab/{name}"} for name in term.simulators],
    }
