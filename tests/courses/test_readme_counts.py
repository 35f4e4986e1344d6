"""The README's count of the content ("Today: N chapters in N parts, ...") is the fixtures' count, so it cannot go
stale again (it said 52/208/319 while the loader loaded 62/253/349)."""

import re
from pathlib import Path

import yaml

from apps.core.content import FIXTURES_DIR

README = FIXTURES_DIR.parent / "README.md"


def _items(*paths: Path) -> int:
    return sum(len(yaml.safe_load(path.read_text(encoding="utf-8")) or []) for path in paths)


def fixture_counts() -> dict[str, int]:
    incidents = _items(FIXTURES_DIR / "diagnosis.yaml"), _items(FIXTURES_DIR / "k8s-incidents.yaml")
    return {
        "chapters": len(list((FIXTURES_DIR / "chapters").rglob("*.md"))),
        "parts": _items(FIXTURES_DIR / "parts.yaml"),
        "glossary terms": _items(*sorted((FIXTURES_DIR / "glossary").glob("*.yaml"))),
        "questions": _items(*sorted((FIXTURES_DIR / "questions").glob("*.yaml"))),
        "numbers to memorize": _items(FIXTURES_DIR / "numbers.yaml"),
        "diagnosis scenarios": sum(incidents), "serving incidents": incidents[0], "Kubernetes ones": incidents[1],
        "design exercises": len(list((FIXTURES_DIR / "design_exercises").glob("*.yaml"))),
        "models": _items(FIXTURES_DIR / "catalog" / "models.yaml"), "GPUs": _items(FIXTURES_DIR / "catalog" / "gpus.yaml"),
    }


def test_the_readme_counts_the_content_as_the_fixtures_hold_it():
    text = " ".join(README.read_text(encoding="utf-8").split())
    line = re.search(r"Today: (.*?)\(`tests/courses/test_readme_counts\.py`", text).group(1)
    stated = {name: int(number) for number, name in re.findall(
        r"(\d+) (chapters|parts|glossary terms|questions|numbers to memorize|diagnosis scenarios|serving incidents|"
        r"Kubernetes ones|design exercises|models|GPUs)", line)}
    assert stated == fixture_counts()
