"""Every CLI flag (`--...`) and vLLM metric (`vllm:...`) written in backticks anywhere in fixtures/, and every flag the
`vllm serve` builder writes (its command and Kubernetes manifests), is listed, with its source at the release the
content describes, in fixtures/vllm-flags.yaml."""

import re
from pathlib import Path

import yaml

from apps.core.content import FIXTURES_DIR
from apps.simulators.modeling import k8s_manifest, serve_config

LIST = FIXTURES_DIR / "vllm-flags.yaml"
CODE = re.compile(r"`([^`\n]+)`")
FLAG = re.compile(r"(?<![\w-])--[a-z0-9][a-z0-9-]*")
METRIC = re.compile(r"\bvllm:[a-z0-9_:]*[a-z0-9_]")
BUILDER_FLAG = re.compile(r"[\"'](--[a-z0-9][a-z0-9-]*)[\"']")  # a flag as a string literal in the builder's code
PROMETHEUS_SUFFIXES = ("_total", "_bucket", "_sum", "_count")
FLAG_SECTIONS = ("flags", "bench_flags", "removed_flags", "other_tools_flags")
METRIC_SECTIONS = ("metrics", "removed_metrics")


def reference() -> dict:
    return yaml.safe_load(LIST.read_text(encoding="utf-8"))


def mentions(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Flag and metric names found inside backticks in the content files under ``root``, with the files naming them."""
    flags: dict[str, set[str]] = {}
    metrics: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".md", ".yaml") or path.resolve() == LIST.resolve():
            continue
        name = path.relative_to(root).as_posix()
        for span in CODE.findall(path.read_text(encoding="utf-8")):
            for flag in FLAG.findall(span):
                flags.setdefault(flag, set()).add(name)
            for metric in METRIC.findall(span):
                metrics.setdefault(metric, set()).add(name)
    return flags, metrics


def builder_flags() -> set[str]:
    """The flags the serve builder can write: every flag literal in its modules (each branch's, not one run's)."""
    return {flag for module in (serve_config, k8s_manifest)
            for flag in BUILDER_FLAG.findall(Path(module.__file__).read_text(encoding="utf-8"))}


def unknown(root: Path, listed: dict) -> list[str]:
    known_flags = {row["name"] for section in FLAG_SECTIONS for row in listed[section]}
    known_metrics = {row["name"] for section in METRIC_SECTIONS for row in listed[section]}
    flags, metrics = mentions(root)
    problems = [f"{flag} (in {', '.join(sorted(files))})" for flag, files in flags.items() if flag not in known_flags]
    for metric, files in metrics.items():
        base = next((metric[: -len(s)] for s in PROMETHEUS_SUFFIXES if metric.endswith(s) and metric[: -len(s)] in known_metrics), metric)
        # `vllm:spec_decode_*` names a family: a prefix of listed names
        if base in known_metrics or (metric.endswith("_") and any(m.startswith(metric) for m in known_metrics)):
            continue
        problems.append(f"{metric} (in {', '.join(sorted(files))})")
    return sorted(problems)


def test_the_list_names_a_release_and_a_source_for_every_entry():
    listed = reference()
    assert re.fullmatch(r"v\d+\.\d+\.\d+", listed["release"])
    for section in FLAG_SECTIONS + METRIC_SECTIONS:
        names = [row["name"] for row in listed[section]]
        assert names == sorted(set(names)), f"{section}: sorted, no duplicates"
        for row in listed[section]:
            assert set(row) == {"name", "source"} and isinstance(row["source"], str) and row["source"].strip(), row
            assert FLAG.fullmatch(row["name"]) if section in FLAG_SECTIONS else METRIC.fullmatch(row["name"]), row
    current = [row["source"] for section in ("flags", "bench_flags", "metrics") for row in listed[section]]
    assert all(source.startswith(f"vLLM {listed['release']}, ") for source in current)


def test_every_flag_and_metric_in_the_content_is_listed_with_its_source():
    assert unknown(FIXTURES_DIR, reference()) == []


def test_every_flag_the_serve_builder_writes_is_listed_with_its_source():
    written = builder_flags()
    assert {"--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size", "--enable-expert-parallel",
            "--data-parallel-backend", "--distributed-executor-backend"} <= written
    assert written - {row["name"] for row in reference()["flags"]} == set()


def test_an_unknown_flag_or_metric_fails_the_check(tmp_path):
    (tmp_path / "chapters" / "x").mkdir(parents=True)
    (tmp_path / "chapters" / "x" / "01-a.md").write_text(
        "Run `vllm serve m --max-num-seqs 8 --enable-turbo-mode` and watch `vllm:num_requests_running`,\n"
        "`vllm:prompt_tokens_total`, `vllm:spec_decode_*` and `vllm:made_up_seconds`. Plain --not-in-backticks is prose.\n",
        encoding="utf-8",
    )
    assert unknown(tmp_path, reference()) == [
        "--enable-turbo-mode (in chapters/x/01-a.md)",
        "vllm:made_up_seconds (in chapters/x/01-a.md)",
    ]


def test_every_listed_current_flag_is_used_by_the_content():
    """The list does not drift into a copy of vLLM's --help: each entry is there because the content names it or the
    serve builder writes it."""
    flags, metrics = mentions(FIXTURES_DIR)
    used = set(flags) | builder_flags()
    listed = reference()
    stale = [row["name"] for section in FLAG_SECTIONS for row in listed[section] if row["name"] not in used]
    stale += [row["name"] for section in METRIC_SECTIONS for row in listed[section]
              if not any(m == row["name"] or m.startswith(row["name"] + "_") or (m.endswith("_") and row["name"].startswith(m))
                         for m in metrics)]
    assert stale == []
