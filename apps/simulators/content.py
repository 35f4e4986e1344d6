"""Loader step for the simulator catalog (fixtures/catalog/models.yaml and gpus.yaml).

Each entry is checked twice: field types here (with the entry's line), and meaning by building the
modeling package's ModelSpec / GPUSpec from it, so a catalog the simulators cannot use never loads.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from apps.core.content import LoadContext, clean, entry_status, load_yaml_list, slug_lookup, sync_by_slug
from apps.simulators.modeling import GPUSpec, ModelInputError, ModelSpec
from apps.simulators.models import GPU, ModelConfig

NUMERIC = (int, float)


def load_catalog(ctx: LoadContext) -> None:
    catalog = ctx.root / "catalog"
    _load(ctx, catalog / "models.yaml", ModelSpec, ModelConfig, "models")
    _load(ctx, catalog / "gpus.yaml", GPUSpec, GPU, "gpus")


def _load(ctx: LoadContext, path: Path, spec_cls: type, model, kind: str) -> None:
    if not path.exists():
        ctx.error(path, 1, "catalog file is missing")
        return
    columns = {f.name for f in model._meta.get_fields() if getattr(f, "concrete", False)}
    rows = []
    for entry in load_yaml_list(ctx, path):
        line = entry.get("__line__", 1)
        status = entry_status(ctx, path, entry)
        lookup = slug_lookup(ctx, path, {**entry, "slug": entry.get("slug")})
        values = _checked(ctx, path, line, clean({k: v for k, v in entry.items() if k not in ("status", "renamed_from")}), spec_cls)
        if values is None or status is None:
            continue
        slug = values.pop("slug")
        rows.append(({**lookup, "slug": slug}, {**{k: v for k, v in values.items() if k in columns}, "status": status}, path, line))
    sync_by_slug(ctx, model, kind, rows)


def _checked(ctx: LoadContext, path: Path, line: int, entry: dict, spec_cls: type) -> dict | None:
    known = {f.name: f for f in fields(spec_cls)}
    unknown = sorted(set(entry) - set(known))
    if unknown:
        ctx.error(path, line, f"unknown field '{unknown[0]}'")
        return None
    if not isinstance(entry.get("slug"), str) or not entry["slug"]:
        ctx.error(path, line, "missing required field 'slug'")
        return None
    for name, value in entry.items():
        if value is None or not _numeric_field(known[name]):
            continue
        if isinstance(value, str):  # YAML 1.1 reads 8.03e9 (no sign in the exponent) as a string
            try:
                entry[name] = value = float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, NUMERIC):
            ctx.error(path, line, f"field '{name}' must be a number")
            return None
    try:
        spec_cls(**{k: v for k, v in entry.items()})
    except ModelInputError as exc:
        ctx.error(path, line, f"{entry['slug']}: {exc.field}: {exc.message}")
        return None
    except TypeError as exc:  # a required field is missing
        ctx.error(path, line, f"{entry['slug']}: {exc}")
        return None
    values = dict(entry)
    if spec_cls is GPUSpec:
        values["price_note"] = values.get("price_note") or ""
    return values


def _numeric_field(field) -> bool:
    return any(word in str(field.type) for word in ("int", "float"))
