"""Writing the database back to the fixtures/ text format (the loader's inverse).

Output is canonical — fixed key order, block scalars for multi-line text, lists in a stable order — so that
export → load into an empty database → export yields byte-identical files, and the files in fixtures/ are kept in
this format: exporting a database loaded from fixtures/ reproduces them byte for byte.

Comments are not content (the loader ignores them), with one exception kept by the exporter: the comment block at
the top of a YAML file in fixtures/ (its documentation: units, sources) is written again at the top of the
exported file with the same relative path. Comments anywhere else are not kept; put notes in the header.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath

import yaml

from apps.core.content import FIXTURES_DIR

# Filled by each app's AppConfig.ready() (register_exporters), in INSTALLED_APPS order: the loader's order.
EXPORTERS: list[Callable[[Path, list[Path]], None]] = []


def register_exporters(*exporters: Callable[[Path, list[Path]], None]) -> None:
    """An app's content writers ``exporter(root, written)`` (idempotent)."""
    EXPORTERS.extend(exporter for exporter in exporters if exporter not in EXPORTERS)

# Reference lists kept in fixtures/ that are not database content (the tests and benchmarks read them; the loader
# does not): copied through unchanged, so that an export still writes the whole of fixtures/.
REFERENCE_FILES = ("vllm-flags.yaml", "serving-measurements.yaml", "serving-measurements-external.yaml")
# Folders copied through unchanged: design exercises are edited in their files only (their best answers are searched
# for the text there), so the files are the reference.
REFERENCE_FOLDERS = ("design_exercises",)


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


def _sorted_keys(value):
    """Dicts with their keys in alphabetical order, all the way down."""
    if isinstance(value, dict):
        return {key: _sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(item) for item in value]
    return value


def _canonical_row(row):
    """A row keeps the exporter's field order; a dict below it (a JSON column: an answer key, key numbers) gets
    alphabetical keys, since PostgreSQL's jsonb does not keep the order in which keys were written."""
    if not isinstance(row, dict):
        return row
    return {key: _sorted_keys(value) for key, value in row.items()}


def dump_yaml(data) -> str:
    data = [_canonical_row(row) for row in data] if isinstance(data, list) else _canonical_row(data)
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


def leading_comment(text: str) -> str:
    """The run of ``#`` lines at the very top of a YAML file, followed by one blank line; "" when there is none."""
    lines = []
    for line in text.splitlines(keepends=True):
        if not line.startswith("#"):
            break
        lines.append(line if line.endswith("\n") else line + "\n")
    return "".join(lines) + "\n" if lines else ""


def file_headers(fixtures: Path) -> dict[str, str]:
    """Relative path -> header comment of every YAML file under ``fixtures`` that has one."""
    headers = {}
    for path in sorted(fixtures.rglob("*.yaml")):
        header = leading_comment(path.read_text(encoding="utf-8"))
        if header:
            headers[path.relative_to(fixtures).as_posix()] = header
    return headers


def export_all(root: Path, *, fixtures: Path | None = None) -> list[Path]:
    """Writes every content file under ``root``; returns the paths written. The header comments of the YAML files
    in ``fixtures`` (default: the project's fixtures/) are read first, so exporting onto fixtures/ keeps them."""

    root = Path(root)
    fixtures = Path(fixtures or FIXTURES_DIR)
    headers = file_headers(fixtures) if fixtures.is_dir() else {}
    written: list[Path] = []
    for exporter in EXPORTERS:
        exporter(root, written)
    for path in written:
        header = headers.get(path.relative_to(root).as_posix()) if path.suffix == ".yaml" else None
        if header:
            path.write_text(header + path.read_text(encoding="utf-8"), encoding="utf-8")
    for name in REFERENCE_FILES:
        if (fixtures / name).is_file():
            write_text(root / name, (fixtures / name).read_text(encoding="utf-8"), written)
    for folder in REFERENCE_FOLDERS:
        for path in sorted((fixtures / folder).glob("*")) if (fixtures / folder).is_dir() else []:
            write_text(root / folder / path.name, path.read_text(encoding="utf-8"), written)
    return written
