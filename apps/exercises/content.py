"""Loading design exercises: one file per exercise under fixtures/design_exercises/, checked against the file format
(serializers.ExerciseFile: unknown keys are errors), the catalog (model and GPUs must exist) and the release's best
answers (``_best.json``, written by ``manage.py design_exercises_best``)."""

from __future__ import annotations

import json

from apps.core.content import LoadContext, clean, parse_yaml, slug_lookup, sync_by_slug
from apps.exercises.models import DesignExercise
from apps.exercises.serializers import ExerciseFile
from apps.simulators.models import GPU, ModelConfig

FOLDER = "design_exercises"
BEST_FILE = "_best.json"


def _messages(errors, prefix: str = "") -> list[str]:
    if isinstance(errors, dict):
        return [m for key, value in errors.items() for m in _messages(value, f"{prefix}{key}.")]
    if isinstance(errors, list) and errors and not isinstance(errors[0], str):
        return [m for i, value in enumerate(errors) for m in _messages(value, f"{prefix}{i}.")]
    return [f"{prefix.rstrip('.')}: {message}" for message in errors]


def best_answers(ctx: LoadContext) -> dict:
    path = ctx.root / FOLDER / BEST_FILE
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        ctx.error(path, 1, f"not JSON: {exc}")
        return {}


def load_exercises(ctx: LoadContext) -> None:
    folder = ctx.root / FOLDER
    models = set(ModelConfig.objects.values_list("slug", flat=True))
    gpus = set(GPU.objects.values_list("slug", flat=True))
    best = best_answers(ctx)
    rows = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        entry = parse_yaml(ctx, path)
        if not isinstance(entry, dict):
            ctx.error(path, 1, "expected one exercise (a mapping)")
            continue
        line = entry.get("__line__", 1)
        data = ExerciseFile(data=clean(entry))
        if not data.is_valid():
            for message in _messages(data.errors):
                ctx.error(path, line, message)
            continue
        v = data.validated_data
        problems = []
        if v["slug"] != path.stem:
            problems.append(f"slug '{v['slug']}' must equal the file name '{path.stem}'")
        if v["model"] not in models:
            problems.append(f"model: unknown catalog model '{v['model']}'")
        for slug in [*v["constraints"]["gpus"], *v["search"].get("gpu", [])]:
            if slug not in gpus:
                problems.append(f"unknown catalog GPU '{slug}'")
        for message in problems:
            ctx.error(path, line, message)
        if problems:
            continue
        raw = clean(entry)
        values = {"title": v["title"], "category": v["category"], "level": v["level"], "brief": v["brief"].strip(),
                  "model_slug": v["model"], "traffic": raw["traffic"], "slo": raw["slo"],
                  "constraints": raw["constraints"], "search": raw["search"], "key_points": v["key_points"],
                  "sources": v["sources"], "best": best.get(v["slug"], {}), "status": v["status"]}
        rows.append((slug_lookup(ctx, path, raw), values, path, line))
    sync_by_slug(ctx, DesignExercise, "design_exercises", rows)
