"""Loading the content in fixtures/ into the database: every error reported with file and line, all or nothing.

Each app registers its loader steps ``step(ctx)`` in its ``AppConfig.ready()`` (``register_steps``, with the
stage they belong to); steps run in stage order inside one transaction. A step reads its
files, records problems with ``ctx.error(path, line, message)`` and carries on, so one run lists every
problem. If any were recorded the transaction is rolled back and nothing changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

import yaml
from django.conf import settings
from django.db import transaction

from apps.core.models import ContentManifest, Status

FIXTURES_DIR = Path(settings.BASE_DIR) / "fixtures"
# What an entry's ``status`` may say; ``archived`` is only ever set by deleting through the API.
FILE_STATUSES = [Status.DRAFT.value, Status.PUBLISHED.value]



class Stage(IntEnum):
    """When a loader step runs. Steps of one stage run in INSTALLED_APPS order, then in the order registered."""

    OBJECTS = 10  # parts, chapters, terms: created, not yet linked
    LINKS = 20  # chapter ↔ term links (both sides exist)
    QUESTIONS = 30  # questions, numbers, diagnosis: they name chapters and terms
    CATALOG = 40  # the simulators' models and GPUs
    CARDS = 50  # flashcards made from everything above


@dataclass(frozen=True)
class Step:
    stage: Stage
    run: Callable[[LoadContext], None]

    @property
    def name(self) -> str:
        return f"{self.run.__module__}.{self.run.__name__}"


# Filled by each app's AppConfig.ready() (register_steps): the ground floor names no app above it.
STEPS: list[Step] = []


def register_steps(stage: Stage, *steps: Callable[[LoadContext], None]) -> None:
    """An app's content loaders, run in ``stage`` (idempotent: registering a step again changes nothing)."""
    known = {step.name for step in STEPS}
    for run in steps:
        step = Step(stage, run)
        if step.name not in known:
            STEPS.append(step)
    STEPS.sort(key=lambda step: step.stage)  # stable: registration order kept within a stage


@dataclass(frozen=True)
class ContentError:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class ContentInvalid(Exception):
    def __init__(self, errors: list[ContentError]):
        self.errors = errors
        super().__init__("\n".join(str(error) for error in errors))


@dataclass
class LoadContext:
    root: Path
    errors: list[ContentError] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    # Objects created by earlier steps, by kind and slug, with where they were declared.
    registry: dict[str, dict[str, tuple]] = field(default_factory=dict)
    # Slugs each kind's files name (saved as the ContentManifest when the load succeeds).
    owned: dict[str, set[str]] = field(default_factory=dict)

    def error(self, path: Path | str, line: int, message: str) -> None:
        self.errors.append(ContentError(self.relative(path), line, message))

    def relative(self, path: Path | str) -> str:
        path = Path(path)
        try:
            return str(path.relative_to(self.root.parent))
        except ValueError:
            return str(path)

    def register(self, kind: str, slug: str, obj, path: Path, line: int) -> None:
        self.registry.setdefault(kind, {})[slug] = (obj, path, line)

    def lookup(self, kind: str, slug: str):
        entry = self.registry.get(kind, {}).get(slug)
        return entry[0] if entry else None


class _LineLoader(yaml.SafeLoader):
    """Records the 1-based line of every mapping under the key ``__line__``."""


def _construct_mapping(loader, node, deep=False):
    mapping = loader.construct_mapping(node, deep=deep)
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse_yaml(ctx: LoadContext, path: Path, text: str | None = None, line_offset: int = 0):
    """Parses YAML keeping line numbers; returns None (and records the error) when it does not parse."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8") if text is None else text, Loader=_LineLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        ctx.error(path, (mark.line + 1 if mark else 1) + line_offset, f"YAML does not parse: {getattr(exc, 'problem', exc)}")
        return None
    if line_offset:
        _shift_lines(data, line_offset)
    return data


def _shift_lines(data, offset: int) -> None:
    if isinstance(data, dict):
        if "__line__" in data:
            data["__line__"] += offset
        for value in data.values():
            _shift_lines(value, offset)
    elif isinstance(data, list):
        for item in data:
            _shift_lines(item, offset)


def clean(mapping: dict) -> dict:
    """A mapping without the bookkeeping line keys (recursively)."""
    if isinstance(mapping, dict):
        return {key: clean(value) for key, value in mapping.items() if key != "__line__"}
    if isinstance(mapping, list):
        return [clean(item) for item in mapping]
    return mapping


def load_yaml_list(ctx: LoadContext, path: Path) -> list[dict]:
    data = parse_yaml(ctx, path)
    if data is None:
        return []
    if not isinstance(data, list):
        ctx.error(path, 1, "expected a YAML list of entries")
        return []
    entries = []
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            ctx.error(path, 1, f"entry {index + 1} is not a mapping")
            continue
        entries.append(item)
    return entries


def require(ctx: LoadContext, path: Path, entry: dict, fields: dict[str, type | tuple]) -> bool:
    """Checks required fields and their types; records an error per problem."""
    ok = True
    line = entry.get("__line__", 1)
    for name, expected in fields.items():
        value = entry.get(name)
        if value is None or value == "":
            ctx.error(path, line, f"missing required field '{name}'")
            ok = False
        elif not isinstance(value, expected):
            ctx.error(path, line, f"field '{name}' must be {getattr(expected, '__name__', expected)}")
            ok = False
    return ok


def files_fingerprint(root: Path) -> str:
    """sha256 over every file under the content root (relative path and bytes), in path order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(root).rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def load_needed(root: Path | None = None) -> bool:
    """False when the last load was of exactly these files (``load_content --if-changed``)."""
    manifest = ContentManifest.objects.filter(kind=ContentManifest.FILES).first()
    return manifest is None or manifest.fingerprint != files_fingerprint(Path(root or FIXTURES_DIR))


def load_all(root: Path | None = None) -> dict[str, int]:
    ctx = LoadContext(root=Path(root or FIXTURES_DIR))
    with transaction.atomic():
        for step in STEPS:
            step.run(ctx)
        if ctx.errors:
            transaction.set_rollback(True)
            raise ContentInvalid(ctx.errors)
        for kind, slugs in ctx.owned.items():
            _save_manifest(kind, slugs=sorted(slugs))
        _save_manifest(ContentManifest.FILES, fingerprint=files_fingerprint(ctx.root))
    return ctx.counts


def _save_manifest(kind: str, **values) -> None:
    manifest = ContentManifest.objects.filter(kind=kind).first()
    if manifest is None:
        ContentManifest.objects.create(kind=kind, **values)
    elif any(getattr(manifest, name) != value for name, value in values.items()):
        for name, value in values.items():
            setattr(manifest, name, value)
        manifest.save()


def source_of(ctx: LoadContext, path: Path) -> str:
    """The file an item came from, relative to the content root (recorded so export writes it back there)."""
    try:
        return Path(path).relative_to(ctx.root).as_posix()
    except ValueError:
        return Path(path).name


def entry_status(ctx: LoadContext, path: Path, entry: dict) -> str | None:
    """The optional ``status: draft|published`` of an entry (default published); None after recording an error."""
    status = entry.get("status", Status.PUBLISHED)
    if status not in FILE_STATUSES:
        ctx.error(path, entry.get("__line__", 1), f"status must be one of {', '.join(FILE_STATUSES)}")
        return None
    return status


def slug_lookup(ctx: LoadContext, path: Path, entry: dict) -> dict:
    """The row key of an entry: its slug, and the slugs it was renamed from (``renamed_from: old`` or a list).

    The fixture format has no other stable id, so a rename is declared: the object that had the old slug takes the
    new one and keeps its primary key, hence its flashcard, learners' reviews and practice answers. The exporter
    does not write ``renamed_from``; authors drop it once every database has loaded the rename.
    """
    renamed = entry.get("renamed_from") or []
    if isinstance(renamed, str):
        renamed = [renamed]
    if not isinstance(renamed, list) or not all(isinstance(item, str) and item for item in renamed):
        ctx.error(path, entry.get("__line__", 1), "renamed_from must be a slug or a list of slugs")
        renamed = []
    return {"slug": entry["slug"], "renamed_from": renamed}


def owned_slugs(model, kind: str) -> set[str]:
    """The slugs of ``kind`` the fixture files owned at the last load. Before any manifest existed the loader set
    ``source_file`` on everything it wrote (the API never sets it), so that stands in for a first manifest."""
    manifest = ContentManifest.objects.filter(kind=kind).first()
    if manifest is not None:
        return set(manifest.slugs)
    return set(model.objects.exclude(source_file="").values_list("slug", flat=True))


def sync_by_slug(ctx: LoadContext, model, kind: str, rows: list[tuple[dict, dict, Path, int]]) -> None:
    """Creates or updates one object per slug named in the files; retires objects the files owned and dropped.

    ``rows`` holds (lookup from ``slug_lookup``, field values, path, line). Only changed objects are written, so a
    second load changes nothing. The loader manages only what the files own: an object is retired (set to draft)
    when its slug was in the files at the last load (``ContentManifest``) and is not any more; objects authored in
    the admin or API and never named by a file are left alone. Retiring keeps the row, so learners' practice
    answers and reviews stay, the flashcard is suspended, and bringing the slug back publishes it again and
    unsuspends the cards of learners who had them active. ``renamed_from`` carries an object over to a new slug.
    """
    existing = {obj.slug: obj for obj in model.objects.all()}
    owned = owned_slugs(model, kind)
    named = {lookup["slug"] for lookup, _, _, _ in rows}
    seen = set()
    for lookup, values, path, line in rows:
        slug = lookup["slug"]
        if slug in seen:
            ctx.error(path, line, f"duplicate slug '{slug}'")
            continue
        seen.add(slug)
        values = {"source_file": source_of(ctx, path), **values}
        obj = existing.get(slug)
        for old in lookup.get("renamed_from", ()):
            if old in named:
                ctx.error(path, line, f"renamed_from '{old}': that slug is still in the files")
            elif obj is None and old in existing:
                obj = existing.pop(old)
                obj.slug = slug
                obj.save(update_fields=["slug"])
                existing[slug] = obj
                owned.discard(old)
        if obj is None:
            obj = model.objects.create(slug=slug, **values)
        elif any(getattr(obj, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(obj, name, value)
            obj.save()
        ctx.register(kind, slug, obj, path, line)
    for slug, obj in existing.items():
        if slug in owned and slug not in seen and obj.status == Status.PUBLISHED:
            obj.status = Status.DRAFT
            obj.save(update_fields=["status", "updated_at"])
    ctx.owned[kind] = seen
    ctx.counts[kind] = len(seen)


def set_m2m_if_changed(manager, objects) -> None:
    wanted = {obj.pk for obj in objects}
    if set(manager.values_list("pk", flat=True)) != wanted:
        manager.set(objects)
