"""Every chapter and every question in fixtures/, published or draft, carries at least one source; a source that cites
vLLM's code names the release the content describes (the `release` of fixtures/vllm-flags.yaml) and a path in vLLM's
repository at it, e.g. 'vLLM v0.33.0, vllm/config/cache.py: CacheConfig.gpu_memory_utilization'."""

import re
from pathlib import Path

import yaml

from apps.core.content import FIXTURES_DIR, LoadContext, load_yaml_list
from apps.courses.content import read_chapter_file

RELEASE = yaml.safe_load((FIXTURES_DIR / "vllm-flags.yaml").read_text(encoding="utf-8"))["release"]
VLLM_PATH = re.compile(r"(?<![\w./-])vllm/[\w./-]*\w")
REPO_PATH = re.compile(r"(?<![\w./-])(vllm|docs|benchmarks|examples|csrc)/[\w./-]*\w")
# vLLM's documentation pages are cited by title, not by release and path
VLLM_DOCS = re.compile(r"vLLM (documentation|docs|design document)\b")


def sourced_items(root: Path) -> list[tuple[str, object]]:
    """(file:line slug, sources) for every chapter and question under ``root``, whatever its status."""
    ctx = LoadContext(root=root)
    items: list[tuple[str, object]] = []
    for path in sorted((root / "chapters").rglob("*.md")):
        read = read_chapter_file(ctx, path)
        if read is not None:
            items.append((f"chapter {path.relative_to(root).as_posix()}", read[0].get("sources")))
    for path in sorted((root / "questions").glob("*.yaml")):
        for entry in load_yaml_list(ctx, path):
            items.append((f"question {path.relative_to(root).as_posix()}:{entry['__line__']} {entry.get('slug')}", entry.get("sources")))
    assert ctx.errors == [], ctx.errors
    return items


def cites_vllm_code(source: str) -> bool:
    return bool(VLLM_PATH.search(source)) or (source.startswith("vLLM") and not VLLM_DOCS.match(source))


def problems(root: Path, release: str = RELEASE) -> list[str]:
    found = []
    for item, sources in sourced_items(root):
        if not isinstance(sources, list) or not sources:
            found.append(f"{item}: no sources")
            continue
        for source in sources:
            if not isinstance(source, str) or not source.strip():
                found.append(f"{item}: empty source {source!r}")
            elif cites_vllm_code(source) and not (source.startswith(f"vLLM {release}, ") and REPO_PATH.search(source)):
                found.append(f"{item}: a vLLM source must start 'vLLM {release}, ' and name a path in vLLM's repository: {source!r}")
    return found


def test_every_chapter_and_question_has_a_source():
    assert problems(FIXTURES_DIR) == []


def test_the_check_names_each_item_without_a_source_and_each_unpinned_vllm_source(tmp_path):
    root = tmp_path / "fixtures"
    (root / "chapters" / "basics").mkdir(parents=True)
    (root / "questions").mkdir()
    front = "---\nslug: {slug}\ntitle: T\npart: basics\norder: {order}\nsummary: S.\nstatus: {status}\n{sources}---\nBody.\n"
    (root / "chapters" / "basics" / "01-sourced.md").write_text(front.format(
        slug="sourced", order=1, status="published",
        sources="sources:\n- 'vLLM v9.9.9, vllm/config/cache.py: CacheConfig'\n- vLLM documentation, Architecture Overview\n"))
    (root / "chapters" / "basics" / "02-draft.md").write_text(front.format(slug="draft", order=2, status="draft", sources=""))
    (root / "questions" / "q.yaml").write_text(
        "- slug: fine\n  sources:\n  - Kwon et al., PagedAttention (SOSP 2023), §4.5\n  - 'vLLM v9.9.9, docs/design/metrics.md: the metric list'\n"
        "- slug: none\n  sources: []\n"
        "- slug: no-release\n  sources:\n  - 'vllm/v1/core/sched/scheduler.py: Scheduler.schedule'\n"
        "- slug: no-path\n  sources:\n  - vLLM v9.9.9, the scheduler\n"
        "- slug: other-release\n  sources:\n  - 'vLLM v0.1.0, vllm/config/cache.py: CacheConfig'\n"
    )
    assert problems(root, release="v9.9.9") == [
        "chapter chapters/basics/02-draft.md: no sources",
        "question questions/q.yaml:5 none: no sources",
        "question questions/q.yaml:7 no-release: a vLLM source must start 'vLLM v9.9.9, ' and name a path in vLLM's repository: "
        "'vllm/v1/core/sched/scheduler.py: Scheduler.schedule'",
        "question questions/q.yaml:10 no-path: a vLLM source must start 'vLLM v9.9.9, ' and name a path in vLLM's repository: "
        "'vLLM v9.9.9, the scheduler'",
        "question questions/q.yaml:13 other-release: a vLLM source must start 'vLLM v9.9.9, ' and name a path in vLLM's repository: "
        "'vLLM v0.1.0, vllm/config/cache.py: CacheConfig'",
    ]
