"""Writing the database back to the fixtures/ text format (the loader's inverse).

Output is canonical — fixed key order, block scalars for multi-line text, lists in a stable order — so that
export → load into an empty database → export yields byte-identical files.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path, PurePosixPath

import yaml

EXPORTERS = [
    "apps.courses.export.export_parts",
    "apps.courses.export.export_chapters",
    "apps.glossary.export.export_terms",
    "apps.quiz.export.export_questions",
    "apps.quiz.export.export_numbers",
    "apps.quiz.export.export_diagnosis",
    "apps.simulators.export.export_catalog",
]


class _Dumper(yaml.SafeDumper):
    pass


def _represent_str(dumper, value: str):
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value if value.endswith("\n") else value + "\n", style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _represent_float(dumper, value: float):
    # Exponent with a sign and a dot so that YAML 1.1 readers (PyYAML) parse it back as a float.
    text = repr(value)
    if "e" in text or "E" in text:
        mantissa, exponent = text.lower().split("e")
        if "." not in mantissa:
            mantissa += ".0"
        if exponent[0] not in "+-":
            exponent = "+" + exponent
        text = f"{mantissa}e{exponent}"
    elif "." not in text and text not in ("inf", "-inf", "nan"):
        text += ".0"
    return dumper.represent_scalar("tag:yaml.org,2002:float", text)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(float, _represent_float)


def dump_yaml(data) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100000, default_flow_style=False)


def write_text(path: Path, text: str, written: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    written.append(path)


def target_file(source_file: str, folder: str, default: str) -> str:
    """Where an item goes: the file it was loaded from when that is a plain ``<folder>/<name>.yaml``, else the default."""
    path = PurePosixPath(source_file or "")
    if len(path.parts) == 2 and path.parts[0] == folder and path.suffix == ".yaml" and not path.name.startswith("."):
        return str(path)
    return f"{folder}/{default}"


def with_status(row: dict, status: str) -> dict:
    """Drafts carry ``status: draft`` (right after the slug); published is the default and is left out."""
    if status == "published":
        return row
    slug = row.pop("slug")
    return {"slug": slug, "status": status, **row}


def export_all(root: Path) -> list[Path]:
    """Writes every content file under ``root``; returns the paths written."""
    written: list[Path] = []
    for dotted in EXPORTERS:
        module_name, function_name = dotted.rsplit(".", 1)
        if importlib.util.find_spec(module_name) is None:
            continue
        getattr(importlib.import_module(module_name), function_name)(Path(root), written)
    return written
