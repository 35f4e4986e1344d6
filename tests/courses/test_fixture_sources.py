"""Every `sources` entry in fixtures/ (the YAML files and the front matter of the chapter files) can be checked by a
reader: it holds an https:// URL of the primary source, or a repository reference pinned to a release or commit with
a file path ('vLLM v0.33.0, vllm/config/cache.py: ...', 'microsoft/vidur at 0c1a57a, vidur/...py: ...'), or a file of
this repository ('Interview kit, apps/simulators/modeling/capacity.py: plan_capacity'), which must exist and hold the
name cited after it."""

import re
from pathlib import Path

import yaml

from apps.core.content import FIXTURES_DIR

FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
URL = re.compile(r"https://[\w.-]+\.[a-z]{2,}/?\S*")
# owner/repo at <tag or commit>, path/to/file.ext
REPO_AT = re.compile(r"\b[\w.-]+/[\w.-]+ at (?:commit )?[\w.-]+, [\w./-]+\.\w+")
# <project> <version> [(note)], path/to/file.ext  e.g. 'vLLM v0.33.0, vllm/config/cache.py'
PINNED = re.compile(r"\b[\w.-]+ v?\d[\w.]*(?: \([^)]*\))?, [\w./-]+\.\w+")
# a file of this repository, with the name it defines: 'apps/simulators/modeling/moe.py: routing_probabilities'
PROJECT_FILE = re.compile(r"(?<![\w/.-])((?:apps|fixtures|frontend|benchmarks)/[\w./-]+\.\w+)(?::\s*([A-Za-z_]\w*))?")
REPO_ROOT = FIXTURES_DIR.parent


def project_file_problem(source: str, root: Path = REPO_ROOT) -> str | None:
    """Why a citation of this repository's own files cannot be followed (None when every file and name is there)."""
    for path, name in PROJECT_FILE.findall(source):
        if not (root / path).is_file():
            return f"no file {path}"
        if name and not re.search(rf"\b{re.escape(name)}\b", (root / path).read_text(encoding="utf-8")):
            return f"{path} has no {name}"
    return None


def checkable(source: str) -> bool:
    if URL.search(source) or REPO_AT.search(source) or PINNED.search(source):
        return True
    return bool(PROJECT_FILE.search(source)) and project_file_problem(source) is None


def _walk(node, found: list[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "sources" and isinstance(value, list):
                found.extend(value)
            else:
                _walk(value, found)
    elif isinstance(node, list):
        for value in node:
            _walk(value, found)


def fixture_sources(root: Path = FIXTURES_DIR) -> list[tuple[str, object]]:
    """(file, entry) for every entry of every `sources` list under ``root``."""
    found: list[tuple[str, object]] = []
    documents = [(path, path.read_text(encoding="utf-8")) for path in sorted(root.rglob("*.yaml"))]
    for path in sorted((root / "chapters").rglob("*.md")):
        match = FRONT_MATTER.match(path.read_text(encoding="utf-8"))
        if match:
            documents.append((path, match.group(1)))
    for path, text in documents:
        entries: list = []
        _walk(yaml.safe_load(text), entries)
        found.extend((path.relative_to(root).as_posix(), entry) for entry in entries)
    return found


def problems(root: Path = FIXTURES_DIR) -> list[str]:
    return [f"{where}: not checkable (no https:// URL, no repository path at a release or commit): {entry!r}"
            for where, entry in fixture_sources(root) if not isinstance(entry, str) or not checkable(entry)]


def test_every_fixture_source_is_checkable():
    assert problems() == []


def test_the_fixtures_have_sources():
    assert len(fixture_sources()) > 1000


def test_the_check_names_unverifiable_entries(tmp_path):
    root = tmp_path / "fixtures"
    (root / "chapters" / "basics").mkdir(parents=True)
    (root / "chapters" / "basics" / "01-a.md").write_text(
        "---\nslug: a\nsources:\n- 'vLLM v0.33.0, vllm/config/cache.py: CacheConfig'\n- Someone, a blog post\n---\nBody.\n")
    (root / "q.yaml").write_text(
        "- slug: q\n  sources:\n  - https://arxiv.org/abs/2309.06180, §4.5\n"
        "  - 'microsoft/vidur at 0c1a57a, vidur/x.py: f'\n  - A datasheet (3.35 TB/s)\n")
    assert problems(root) == [
        "q.yaml: not checkable (no https:// URL, no repository path at a release or commit): 'A datasheet (3.35 TB/s)'",
        "chapters/basics/01-a.md: not checkable (no https:// URL, no repository path at a release or commit): "
        "'Someone, a blog post'",
    ]


def test_a_citation_of_this_repository_names_a_file_and_a_name_it_holds(tmp_path):
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "m.py").write_text("def plan_capacity():\n    pass\n")
    assert project_file_problem("Interview kit, apps/m.py: plan_capacity (ρ)", tmp_path) is None
    assert project_file_problem("Interview kit, apps/m.py: plan_capacty", tmp_path) == "apps/m.py has no plan_capacty"
    assert project_file_problem("Interview kit, apps/gone.py: f", tmp_path) == "no file apps/gone.py"
    # The real tree: every own citation in the fixtures resolves.
    assert [entry for _, entry in fixture_sources() if PROJECT_FILE.search(entry) and project_file_problem(entry)] == []


def test_each_entry_fits_the_api_limit():
    from apps.courses.serializers import MAX_SOURCE_LENGTH

    assert [entry for _, entry in fixture_sources() if len(entry) > MAX_SOURCE_LENGTH] == []
