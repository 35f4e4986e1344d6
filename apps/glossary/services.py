"""Glossary reads: the filtered term list and one term with its links."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404

from apps.core.exceptions import InvalidInput
from apps.core.models import Status
from apps.core.permissions import is_author
from apps.core.rendering import render_markdown
from apps.core.validation import clean_or_400, link_rows
from apps.glossary.models import Term
from apps.glossary.signals import term_names_changed

LIST_FIELDS = ("id", "slug", "term", "aliases", "definition")

# Rendered explanations by (slug, updated_at): a term's explanation only changes when the term is saved, which moves
# updated_at. Bounded so a long-running worker cannot grow it without limit.
_EXPLANATION_CACHE: dict[tuple[str, object], str] = {}
_EXPLANATION_CACHE_MAX = 2000


def chapter_model():
    """The chapter model, through the relation Term declares (the glossary imports nothing from courses)."""
    return Term.chapters.field.related_model


def term_list(*, user, q: str = "") -> QuerySet[Term]:
    """Terms visible to the user; ``q`` is a case-insensitive substring of the term or one of its aliases."""
    terms = Term.objects.visible_to(user).only(*LIST_FIELDS).order_by("term")
    q = q.strip()
    if not q:
        return terms
    # Aliases are a JSON list; matching on its text form is portable across SQLite and PostgreSQL.
    needle = q.lower()
    alias_hits = [pk for pk, aliases in terms.exclude(aliases=[]).values_list("pk", "aliases")
                  if any(needle in alias.lower() for alias in aliases)]
    return terms.filter(Q(term__icontains=q) | Q(pk__in=alias_hits))


def term_page_exists(user, slug: str) -> bool:
    """Whether /glossary/<slug> shows a term to this reader (apps.core.spa answers 404 otherwise)."""
    return Term.objects.visible_to(user).filter(slug=slug).exists()


def term_get(*, user, slug: str, author: bool | None = None) -> Term:
    author = is_author(user) if author is None else author
    queryset = Term.objects.for_author(author).prefetch_related(
        Prefetch("related", queryset=Term.objects.for_author(author).only("id", "slug", "term", "definition").order_by("term")),
        Prefetch("chapters", queryset=chapter_model().objects.links(author=author)),
    )
    return get_object_or_404(queryset, slug=slug)


def explanation_html(term: Term) -> str:
    key = (term.slug, term.updated_at)
    html = _EXPLANATION_CACHE.get(key)
    if html is None:
        html = render_markdown(term.explanation)
        if len(_EXPLANATION_CACHE) >= _EXPLANATION_CACHE_MAX:
            _EXPLANATION_CACHE.clear()
        _EXPLANATION_CACHE[key] = html
    return html


def term_detail(term: Term) -> dict:
    return {
        "slug": term.slug,
        "term": term.term,
        "aliases": term.aliases,
        "definition": term.definition,
        "explanation_html": explanation_html(term),
        "related": [{"slug": other.slug, "term": other.term, "definition": other.definition} for other in term.related.all()],
        "chapters": [{"slug": chapter.slug, "title": chapter.title} for chapter in term.chapters.all()],
        "simulators": [{"name": name, "url": f"/lab/{name}"} for name in term.simulators],
    }


# --- authoring ---------------------------------------------------------------------------------------------

TERM_FIELDS = ("slug", "term", "aliases", "definition", "explanation", "simulators", "status")


@transaction.atomic
def term_write(*, term: Term | None, data: dict) -> Term:
    """Creates (``term`` None) or updates a term from authoring fields; links must resolve; chapters that mention
    the term (by its old or new names) are re-rendered so their hover definitions follow."""
    creating = term is None
    old_names = [] if term is None else [term.term, *term.aliases]
    old_view = None if term is None else (term.slug, term.term, list(term.aliases), term.definition, term.status)
    term = Term(status=Status.DRAFT) if term is None else term
    for name in TERM_FIELDS:
        if name in data:
            setattr(term, name, data[name])
    errors: dict[str, list[str]] = {}
    related_slugs = list(data.get("related", []))
    if term.slug in related_slugs or (old_view and old_view[0] in related_slugs):
        errors["related"] = [f"a term cannot be related to itself ('{term.slug}')"]
        related = []
    else:
        related = link_rows(errors, "related", Term, related_slugs, "glossary term")
    chapters = link_rows(errors, "chapters", chapter_model(), list(data.get("chapters", [])), "chapter")
    if errors:
        raise InvalidInput.of_fields(errors)
    clean_or_400(term)
    term.save()
    if creating or "related" in data:
        term.related.set(related)
    if creating or "chapters" in data:
        term.chapters.set(chapters)
    if old_view != (term.slug, term.term, list(term.aliases), term.definition, term.status):
        term_names_changed.send(sender=Term, names=[*old_names, term.term, *term.aliases])
    return term


def term_authoring(term: Term, warnings: list[str] | None = None) -> dict:
    return {
        **{name: getattr(term, name) for name in TERM_FIELDS},
        "related": sorted(term.related.values_list("slug", flat=True)),
        "chapters": sorted(term.chapters.values_list("slug", flat=True)),
        "updated_at": term.updated_at,
        "warnings": warnings or [],
    }


def term_for_authoring(slug: str) -> Term:
    return get_object_or_404(Term, slug=slug)


@transaction.atomic
def term_delete(term: Term) -> None:
    names = [term.term, *term.aliases]
    term.status = Status.ARCHIVED  # archived, not deleted: the term's card keeps learners' reviews
    term.save(update_fields=["status", "updated_at"])
    term_names_changed.send(sender=Term, names=names)
