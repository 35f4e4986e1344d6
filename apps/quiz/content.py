"""Loader steps for questions (fixtures/questions/*.yaml), numbers to memorize and the investigation games' scenarios
(diagnosis.yaml, k8s-incidents.yaml)."""

from __future__ import annotations

import re
from pathlib import Path

from apps.core.content import (
    LoadContext,
    clean,
    entry_status,
    load_yaml_list,
    require,
    set_m2m_if_changed,
    slug_lookup,
    sync_by_slug,
)
from apps.courses.models import Level
from apps.quiz.investigation import scenario_errors
from apps.quiz.kinds import KeyError_, validate_key
from apps.quiz.models import GAME_CAUSES, DiagnosisScenario, EvidenceKind, Game, Kind, NumberToMemorize, Question, Topic

TOPIC_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# The kind-specific fields of a question entry that make up its answer key.
KEY_FIELDS = ("options", "numeric", "items", "bins", "pairs")


def _slug_list(ctx: LoadContext, path: Path, line: int, label: str, value) -> list[str] | None:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        ctx.error(path, line, f"{label} must be a list of slugs")
        return None
    return value


def _lookup_all(ctx: LoadContext, path: Path, line: int, kind: str, slugs: list[str], describe: str) -> list:
    found = []
    for slug in slugs:
        obj = ctx.lookup(kind, slug)
        if obj is None:
            ctx.error(path, line, f"{describe}: unknown {kind[:-1]} '{slug}'")
        else:
            found.append(obj)
    return found


def _key_error_line(entry: dict, field: str) -> int:
    """The line of the nested mapping an error points at (options.2.text -> line of the third option)."""
    node, line = entry, entry["__line__"]
    for part in field.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            break
        if isinstance(node, dict) and "__line__" in node:
            line = node["__line__"]
    return line


def _parse_question(ctx: LoadContext, path: Path, entry: dict):
    """Validates one entry; returns (values, links) or None after recording errors."""
    line = entry["__line__"]
    if not require(ctx, path, entry, {"slug": str, "kind": str, "level": str, "prompt": str, "answer": str}):
        return None
    slug = entry["slug"]
    describe = f"question '{slug}'"
    status = entry_status(ctx, path, entry)
    ok = status is not None
    if entry["kind"] not in Kind.values:
        ctx.error(path, line, f"{describe}: kind: must be one of {', '.join(Kind.values)}")
        return None
    if entry["level"] not in Level.values:
        ctx.error(path, line, f"{describe}: level: must be one of {', '.join(Level.values)}")
        ok = False
    raw_key = {name: clean(entry[name]) for name in KEY_FIELDS if name in entry}
    try:
        key = validate_key(entry["kind"], raw_key)
    except KeyError_ as exc:
        ctx.error(path, _key_error_line(entry, exc.field), f"{describe}: {exc.field}: {exc}")
        ok = False
    topics = _slug_list(ctx, path, line, f"{describe}: topics", entry.get("topics"))
    chapters = _slug_list(ctx, path, line, f"{describe}: chapters", entry.get("chapters"))
    terms = _slug_list(ctx, path, line, f"{describe}: glossary", entry.get("glossary"))
    if topics is None or chapters is None or terms is None:
        return None
    for topic in topics:
        if not TOPIC_SLUG.match(topic):
            ctx.error(path, line, f"{describe}: topics: '{topic}' is not a lowercase-hyphenated tag")
            ok = False
    chapter_objects = _lookup_all(ctx, path, line, "chapters", chapters, f"{describe}: chapters")
    term_objects = _lookup_all(ctx, path, line, "terms", terms, f"{describe}: glossary")
    if not chapters:
        ctx.error(path, line, f"{describe}: chapters: a question links to at least one chapter")
        ok = False
    sources = entry.get("sources") or []
    if not isinstance(sources, list) or not all(isinstance(item, str) and item.strip() for item in sources):
        ctx.error(path, line, f"{describe}: sources: must be a list of non-empty strings")
        ok = False
    if not ok:
        return None
    values = {
        "kind": entry["kind"],
        "level": entry["level"],
        "prompt": entry["prompt"].strip() + "\n",
        "answer": entry["answer"].strip() + "\n",
        "key": key,
        "sources": sources,
        "status": status,
    }
    return values, (topics, chapter_objects, term_objects)


def load_questions(ctx: LoadContext) -> None:
    rows = []
    links: dict[str, tuple] = {}
    previous = {slug: (kind, key, version) for slug, kind, key, version in Question.objects.values_list("slug", "kind", "key", "key_version")}
    for path in sorted((ctx.root / "questions").glob("*.yaml")):
        for entry in load_yaml_list(ctx, path):
            parsed = _parse_question(ctx, path, entry)
            if parsed is None:
                continue
            values, question_links = parsed
            slug = entry["slug"]
            lookup = slug_lookup(ctx, path, entry)
            # A renamed question keeps its key version (and its pk, so learners' history) from its old slug.
            old = previous.get(slug) or next((previous[name] for name in lookup["renamed_from"] if name in previous), None)
            # A changed answer key invalidates what learners were graded against: bump the version.
            if old is None:
                values["key_version"] = 1
            else:
                values["key_version"] = old[2] if (old[0], old[1]) == (values["kind"], values["key"]) else old[2] + 1
            links.setdefault(slug, question_links)
            rows.append((lookup, values, path, entry["__line__"]))
    sync_by_slug(ctx, Question, "questions", rows)
    _link_questions(ctx, links)


def _link_questions(ctx: LoadContext, links: dict[str, tuple]) -> None:
    wanted_topics = {topic for topics, _, _ in links.values() for topic in topics}
    existing = {topic.slug: topic for topic in Topic.objects.all()}
    missing = sorted(wanted_topics - set(existing))
    if missing:
        Topic.objects.bulk_create([Topic(slug=slug) for slug in missing])
        existing = {topic.slug: topic for topic in Topic.objects.all()}
    for slug, (topics, chapters, terms) in links.items():
        question = ctx.lookup("questions", slug)
        if question is None:
            continue
        set_m2m_if_changed(question.topics, [existing[name] for name in topics])
        set_m2m_if_changed(question.chapters, chapters)
        set_m2m_if_changed(question.glossary_terms, terms)
    unused = Topic.objects.filter(questions__isnull=True)
    if unused.exists():
        unused.delete()
    ctx.counts["topics"] = len(wanted_topics)


def _load_simple(ctx: LoadContext, path: Path, required: dict, build) -> tuple[list, dict]:
    rows, chapter_links = [], {}
    if not path.exists():
        return rows, chapter_links
    for entry in load_yaml_list(ctx, path):
        status = entry_status(ctx, path, entry)
        if not require(ctx, path, entry, required) or status is None:
            continue
        values = build(ctx, path, entry)
        if values is None:
            continue
        values["status"] = status
        chapters = _slug_list(ctx, path, entry["__line__"], f"'{entry['slug']}': chapters", entry.get("chapters"))
        if chapters is None:
            continue
        chapter_links[entry["slug"]] = _lookup_all(ctx, path, entry["__line__"], "chapters", chapters, f"'{entry['slug']}': chapters")
        rows.append((slug_lookup(ctx, path, entry), values, path, entry["__line__"]))
    return rows, chapter_links


def _number_values(ctx: LoadContext, path: Path, entry: dict) -> dict | None:
    if not isinstance(entry["value"], (str, int, float)) or isinstance(entry["value"], bool):
        ctx.error(path, entry["__line__"], f"number '{entry['slug']}': value must be a string or number")
        return None
    return {
        "label": entry["label"],
        "value": str(entry["value"]),
        "unit": str(entry.get("unit") or ""),
        "source": entry["source"].strip(),
        "derivation": str(entry.get("derivation") or "").strip(),
    }


def load_numbers(ctx: LoadContext) -> None:
    required = {"slug": str, "label": str, "value": (str, int, float), "source": str}
    rows, chapter_links = _load_simple(ctx, ctx.root / "numbers.yaml", required, _number_values)
    sync_by_slug(ctx, NumberToMemorize, "numbers", rows)
    for slug, chapters in chapter_links.items():
        number = ctx.lookup("numbers", slug)
        if number is not None:
            set_m2m_if_changed(number.chapters, chapters)


# Each investigation game's scenarios live in their own file.
GAME_FILES = {Game.DIAGNOSIS: "diagnosis.yaml", Game.K8S_INCIDENT: "k8s-incidents.yaml"}


def _scenario_values(ctx: LoadContext, path: Path, entry: dict) -> dict | None:
    game = next(game for game, name in GAME_FILES.items() if name == path.name)
    values = {
        "game": game,
        "symptom": entry["symptom"].strip(),
        "details": str(entry.get("details") or "").strip(),
        "evidence": clean(entry.get("evidence")),
        "answer": entry["answer"],
        "telling": clean(entry.get("telling")),
        "reasoning": entry["reasoning"].strip() + "\n",
        "sources": clean(entry.get("sources")),
    }
    if isinstance(values["evidence"], list):
        values["evidence"] = [
            {**item, "text": item["text"].strip() + "\n"} if isinstance(item, dict) and isinstance(item.get("text"), str)
            else item for item in values["evidence"]]
    errors = scenario_errors(causes=GAME_CAUSES[game].values, kinds=EvidenceKind.values, answer=values["answer"],
                             evidence=values["evidence"], telling=values["telling"], sources=values["sources"])
    for field, messages in errors.items():
        for message in messages:
            ctx.error(path, entry["__line__"], f"scenario '{entry['slug']}': {field}: {message}")
    return None if errors else values


def load_diagnosis(ctx: LoadContext) -> None:
    """Every investigation game's scenarios (GAME_FILES), synced together: they share one table and one slug space."""
    required = {"slug": str, "symptom": str, "answer": str, "reasoning": str}
    rows, chapter_links = [], {}
    for name in GAME_FILES.values():
        game_rows, game_links = _load_simple(ctx, ctx.root / name, required, _scenario_values)
        rows += game_rows
        chapter_links.update(game_links)
    sync_by_slug(ctx, DiagnosisScenario, "diagnosis", rows)
    for slug, chapters in chapter_links.items():
        scenario = ctx.lookup("diagnosis", slug)
        if scenario is not None:
            set_m2m_if_changed(scenario.chapters, chapters)
