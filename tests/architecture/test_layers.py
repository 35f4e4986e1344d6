"""The layering rules of ARCHITECTURE.md, as tests: the import-linter contracts hold, and no first-party import
hides inside a function unless a comment says why (a hidden import is how an import cycle goes unnoticed)."""

import ast
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def first_party(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return bool(node.module) and node.level == 0 and node.module.split(".")[0] in {"apps", "config"}
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] in {"apps", "config"} for alias in node.names)
    return False


def unexplained_local_imports(path: Path) -> list[str]:
    """Function-level first-party imports with no comment on their line or in the two lines above."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if first_party(node):
                nearby = lines[max(0, node.lineno - 3):node.lineno]
                if not any("#" in line for line in nearby):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


def test_import_contracts_hold():
    result = subprocess.run([str(Path(sys.executable).with_name("lint-imports"))], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "0 broken" in result.stdout


def test_no_unexplained_function_level_first_party_imports():
    paths = [p for p in (ROOT / "apps").rglob("*.py") if "migrations" not in p.parts]
    found = [hit for path in sorted(paths) for hit in unexplained_local_imports(path)]
    assert not found, "\n".join(found)


def test_the_detector_sees_a_hidden_import(tmp_path):
    sample = ROOT / "apps" / "_sample_for_architecture_test.py"
    try:
        sample.write_text("def f():\n    from apps.quiz import models\n    return models\n", encoding="utf-8")
        assert unexplained_local_imports(sample) == [
            "apps/_sample_for_architecture_test.py:2: from apps.quiz import models"]
    finally:
        sample.unlink()


def import_cycles(package: str) -> set[tuple[str, str]]:
    """Pairs of modules of `package` that reach each other through imports (one pair per cycle edge)."""
    graph = grimp.build_graph(package, include_external_packages=False, cache_dir=None)
    return {tuple(sorted((a, b))) for a in graph.modules for b in graph.find_modules_directly_imported_by(a)
            if graph.find_shortest_chain(importer=b, imported=a)}


def test_no_import_cycle_between_any_two_modules():
    """Not only between apps: inside one (the ground floor's cache, metrics and throttles once imported each other,
    so importing `cache` or `throttling` first raised ImportError)."""
    assert import_cycles("apps") == set()


def test_the_cycle_finder_sees_a_cycle(tmp_path, monkeypatch):
    package = tmp_path / "looped"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from looped import b\n", encoding="utf-8")
    (package / "b.py").write_text("from looped import a\n", encoding="utf-8")
    (package / "c.py").write_text("from looped import a\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("looped") == {("looped.a", "looped.b")}

