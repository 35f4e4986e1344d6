"""Curriculum reads and progress writes: parts, chapters, the concept map and each reader's progress."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import cast

from django.db import connection, transaction
from django.db.models import Count, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404

from apps.core.cache_keys import bump_content_version
from apps.core.exceptions import InvalidInput
from apps.core.models import Status
from apps.core.permissions import is_author
from apps.core.rendering import GlossaryEntry, mark_glossary_terms, render_markdown
from apps.core.validation import clean_or_400, link_rows
from apps.courses.graph import reading_path
from apps.courses.models import Chapter, ChapterProgress, Part, ProgressStatus
from apps.courses.validation import prerequisite_cycle
from apps.glossary.models import Term

MAX_MERGE_CHAPTERS = 500
STATUS_RANK: dict[str, int] = {ProgressStatus.READING: 1, ProgressStatus.UNDERSTOOD: 2}  # looked up by plain strings


def glossary_entries() -> list[GlossaryEntry]:
    return [
        GlossaryEntry(slug=term.slug, names=(term.term, *term.aliases), definition=term.definition)
        for term in Term.objects.published()
    ]


def render_chapter_body(body: str, entries: list[GlossaryEntry]) -> str:
    return mark_glossary_terms(render_markdown(body), entries)


# --- selectors -------------------------------------------------------------------------------------------


def question_model():
    """The question model, through the relation it declares to chapters (courses imports nothing from quiz)."""
    return Chapter.questions.rel.related_model


def chapter_queryset(user, *, author: bool | None = None) -> QuerySet[Chapter]:
    """Chapters the user may read (drafts only for authors), in curriculum order."""
    author = is_author(user) if author is None else author
    return Chapter.objects.readable(author=author).select_related("part")


def chapter_page_exists(user, slug: str) -> bool:
    """Whether /learn/<slug> shows a chapter to this reader (apps.core.spa answers 404 otherwise)."""
    return chapter_queryset(user).filter(slug=slug).exists()


def chapter_links_queryset(*, author: bool) -> QuerySet[Chapter]:
    """Readable chapters with just what a link needs (slug and title), in curriculum order."""
    return Chapter.objects.links(author=author)


def _reader_progress(user_id: int, chapter_id: int | None = None) -> list[tuple[str, str]]:
    """(chapter slug, status) rows of one reader, of one chapter or all. Runs on every signed-in chapter read,
    cached or not, so it is one short statement on a plain cursor: building it through the ORM cost more CPU than
    PostgreSQL spent answering it."""
    progress, chapter = ChapterProgress._meta, Chapter._meta
    q = connection.ops.quote_name
    pk_column = cast(str, chapter.pk.column)  # a primary key is a concrete field: its column is set
    sql = (f"SELECT c.{q('slug')}, p.{q('status')} FROM {q(progress.db_table)} p "
           f"JOIN {q(chapter.db_table)} c ON c.{q(pk_column)} = p.{q(progress.get_field('chapter').column)} "
           f"WHERE p.{q(progress.get_field('user').column)} = %s")
    params = [user_id]
    if chapter_id is not None:
        sql += f" AND p.{q(progress.get_field('chapter').column)} = %s"
        params.append(chapter_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def progress_by_slug(user) -> dict[str, str]:
    if not user or not user.is_authenticated:
        return {}
    return dict(_reader_progress(user.pk))


def part_list(*, user) -> list[dict]:
    author = is_author(user)  # once: for a session user it is a query
    chapters = chapter_queryset(user, author=author)
    parts = Part.objects.for_author(author).annotate(
        chapter_count=Count("chapters", filter=Q(chapters__in=chapters), distinct=True)
    )
    understood: Counter[int] = Counter()
    if user and user.is_authenticated:
        understood = Counter(
            ChapterProgress.objects.filter(
                user=user, status=ProgressStatus.UNDERSTOOD, chapter__in=chapters
            ).values_list("chapter__part_id", flat=True)
        )
    return [
        {
            "slug": part.slug,
            "title": part.title,
            "order": part.order,
            "summary": part.summary,
            "chapter_count": part.chapter_count,
            "understood_count": understood.get(part.pk, 0) if user and user.is_authenticated else None,
        }
        for part in parts
    ]


def chapter_get(*, user, slug: str, author: bool | None = None) -> Chapter:
    author = is_author(user) if author is None else author
    queryset = chapter_queryset(user, author=author).prefetch_related(
        Prefetch("prerequisites", queryset=chapter_links_queryset(author=author)),
        Prefetch("glossary_terms",
                 queryset=Term.objects.for_author(author).only("id", "slug", "term", "definition").order_by("term")),
        Prefetch("questions", queryset=question_model().objects.published().only("id", "slug", "kind", "level").order_by("id")),
    )
    return get_object_or_404(queryset, slug=slug)


def chapter_neighbours(*, user, chapter: Chapter, author: bool | None = None) -> tuple[dict | None, dict | None]:
    """The previous and next chapter across parts in curriculum order, as ``{"slug", "title"}`` links."""
    author = is_author(user) if author is None else author
    ordered = list(chapter_links_queryset(author=author).values_list("pk", "slug", "title"))
    index = next(i for i, (pk, _, _) in enumerate(ordered) if pk == chapter.pk)
    previous = ordered[index - 1] if index > 0 else None
    following = ordered[index + 1] if index + 1 < len(ordered) else None
    return (
        {"slug": previous[1], "title": previous[2]} if previous else None,
        {"slug": following[1], "title": following[2]} if following else None,
    )


def chapter_status(user, chapter: Chapter | int) -> str | None:
    """The reader's progress on one chapter (a row or its pk; None when signed out or not started)."""
    if not user or not user.is_authenticated:
        return None
    chapter_id = chapter.pk if isinstance(chapter, Chapter) else chapter
    rows = _reader_progress(user.pk, chapter_id)
    return rows[0][1] if rows else None


def _graph(user) -> tuple[list[Chapter], dict[str, list[str]]]:
    chapters = list(chapter_queryset(user).order_by("part__order", "order"))
    visible = {chapter.slug for chapter in chapters}
    edges: dict[str, list[str]] = {chapter.slug: [] for chapter in chapters}
    through = Chapter.prerequisites.through.objects.values_list("from_chapter__slug", "to_chapter__slug")
    for chapter_slug, prerequisite_slug in through:
        if chapter_slug in visible and prerequisite_slug in visible:
            edges[chapter_slug].append(prerequisite_slug)
    return chapters, edges


def concept_map(*, user) -> dict:
    chapters, edges = _graph(user)
    progress = progress_by_slug(user)
    nodes = [
        {
            "slug": chapter.slug,
            "title": chapter.title,
            "part": chapter.part.slug,
            "order": index,
            "level": chapter.level,
            "status": progress.get(chapter.slug),
        }
        for index, chapter in enumerate(chapters)
    ]
    links = [{"source": prerequisite, "target": slug} for slug, prerequisites in edges.items() for prerequisite in prerequisites]
    return {"nodes": nodes, "edges": links}


def concept_path(*, user, to: str) -> list[Chapter]:
    """Every prerequisite of ``to`` (transitively) not yet understood, then ``to``, in a valid reading order."""
    chapters, edges = _graph(user)
    by_slug = {chapter.slug: chapter for chapter in chapters}
    if to not in by_slug:
        raise Chapter.DoesNotExist
    known = {slug for slug, status in progress_by_slug(user).items() if status == ProgressStatus.UNDERSTOOD}
    order = {chapter.slug: index for index, chapter in enumerate(chapters)}
    return [by_slug[slug] for slug in reading_path(edges, to, order, known)]


# --- progress ---------------------------------------------------------------------------------------------


def progress_set(*, user, slug: str, status: str | None) -> str | None:
    chapter = get_object_or_404(chapter_queryset(user), slug=slug)
    if status is None:
        ChapterProgress.objects.filter(user=user, chapter=chapter).delete()
        return None
    ChapterProgress.objects.update_or_create(user=user, chapter=chapter, defaults={"status": status})
    return status


def progress_summary(*, user) -> dict:
    parts = part_list(user=user)
    total = sum(part["chapter_count"] for part in parts)
    understood = sum(part["understood_count"] or 0 for part in parts)
    return {
        "understood": understood,
        "total": total,
        "parts": [
            {"slug": p["slug"], "title": p["title"], "understood": p["understood_count"] or 0, "total": p["chapter_count"]}
            for p in parts
        ],
        "chapters": progress_by_slug(user),
    }


@dataclass(frozen=True)
class MergeResult:
    merged: list[str]
    unchanged: list[str]
    unknown: list[str]


@transaction.atomic
def progress_merge(*, user, chapters: dict[str, str]) -> MergeResult:
    """Adds anonymous (browser) progress to the account; a status only ever goes up (reading -> understood)."""
    known = {chapter.slug: chapter for chapter in chapter_queryset(user).filter(slug__in=list(chapters))}
    existing = {
        row.chapter_id: row
        for row in ChapterProgress.objects.select_for_update().filter(user=user, chapter__in=known.values())
    }
    merged, unchanged = [], []
    for slug, status in sorted(chapters.items()):
        chapter = known.get(slug)
        if chapter is None:
            continue
        row = existing.get(chapter.pk)
        if row is None:
            ChapterProgress.objects.create(user=user, chapter=chapter, status=status)
            merged.append(slug)
        elif STATUS_RANK[status] > STATUS_RANK[row.status]:
            row.status = status
            row.save(update_fields=["status", "updated_at"])
            merged.append(slug)
        else:
            unchanged.append(slug)
    unknown = sorted(slug for slug in chapters if slug not in known)
    return MergeResult(merged=merged, unchanged=unchanged, unknown=unknown)


# --- authoring ---------------------------------------------------------------------------------------------

CHAPTER_FIELDS = ("slug", "title", "order", "summary", "minutes", "level", "objectives", "key_numbers", "body",
                  "simulators", "sources", "status")


@transaction.atomic
def chapter_write(*, chapter: Chapter | None, data: dict) -> Chapter:
    """Creates (``chapter`` None) or updates a chapter from authoring fields (fixture names), validated as a whole:
    known part and links, no prerequisite cycle, unique slug and (part, order), Markdown that renders; then the
    body is re-rendered with the glossary marked."""
    creating = chapter is None
    previous_slug = None if chapter is None else chapter.slug
    chapter = Chapter(status=Status.DRAFT) if chapter is None else chapter
    for name in CHAPTER_FIELDS:
        if name in data:
            setattr(chapter, name, data[name])
    errors: dict[str, list[str]] = {}
    if "part" in data:
        part = Part.objects.filter(slug=data["part"]).first()
        if part is None:
            errors["part"] = [f"unknown part: '{data['part']}'"]
        else:
            chapter.part = part
    if "prerequisites" in data:
        prerequisite_slugs = list(data["prerequisites"])
    else:
        prerequisite_slugs = [] if creating else list(chapter.prerequisites.values_list("slug", flat=True))
    prerequisites = link_rows(errors, "prerequisites", Chapter, [s for s in prerequisite_slugs if s != previous_slug],
                                 "chapter")
    if chapter.slug in prerequisite_slugs or (previous_slug and previous_slug in prerequisite_slugs):
        errors["prerequisites"] = [f"a chapter cannot be its own prerequisite ('{chapter.slug}')"]
    terms = link_rows(errors, "glossary", Term, list(data.get("glossary", [])), "glossary term")
    if "prerequisites" not in errors:
        existing = Chapter.prerequisites.through.objects.values_list("from_chapter__slug", "to_chapter__slug")
        cycle = prerequisite_cycle(chapter.slug, prerequisite_slugs, existing, previous_slug)
        if cycle:
            errors["prerequisites"] = ["prerequisites form a cycle: " + " -> ".join(cycle)]
    if chapter.part_id is not None and "order" not in errors:
        taken = Chapter.objects.filter(part_id=chapter.part_id, order=chapter.order).exclude(pk=chapter.pk).first()
        if taken is not None:
            errors["order"] = [f"position {chapter.order} of part '{chapter.part.slug}' is taken by '{taken.slug}'"]
    if errors:
        raise InvalidInput.of_fields(errors)
    clean_or_400(chapter, exclude=["objectives", "key_numbers"])
    chapter.body_html = render_chapter_body(chapter.body, glossary_entries())
    chapter.save()
    if creating or "prerequisites" in data:
        chapter.prerequisites.set(prerequisites)
    if creating or "glossary" in data:
        chapter.glossary_terms.set(terms)
    return chapter


def chapter_authoring(chapter: Chapter, warnings: list[str] | None = None) -> dict:
    return {
        **{name: getattr(chapter, name) for name in CHAPTER_FIELDS},
        "part": chapter.part.slug,
        "body_html": chapter.body_html,
        "prerequisites": sorted(chapter.prerequisites.values_list("slug", flat=True)),
        "glossary": sorted(chapter.glossary_terms.values_list("slug", flat=True)),
        "updated_at": chapter.updated_at,
        "warnings": warnings or [],
    }


def chapter_for_authoring(slug: str) -> Chapter:
    return get_object_or_404(Chapter.objects.select_related("part"), slug=slug)


def chapter_delete(chapter: Chapter) -> None:
    """Archives: learners' progress keeps its chapter (see Status.ARCHIVED)."""
    chapter.status = Status.ARCHIVED
    chapter.save(update_fields=["status", "updated_at"])


def rerender_chapters_mentioning(names: list[str], **_signal) -> int:
    """Re-renders the bodies that mention any of ``names`` (after a glossary change); returns how many changed."""
    wanted = [name.lower() for name in names if name and len(name) >= 2]
    if not wanted:
        return 0
    entries = glossary_entries()
    changed = 0
    for chapter in Chapter.objects.only("pk", "body", "body_html"):
        body = chapter.body.lower()
        if not any(name in body for name in wanted):
            continue
        rendered = render_chapter_body(chapter.body, entries)
        if rendered != chapter.body_html:
            Chapter.objects.filter(pk=chapter.pk).update(body_html=rendered)
            changed += 1
    if changed:
        bump_content_version()  # update() sends no signal: retire the cached chapter pages
    return changed
