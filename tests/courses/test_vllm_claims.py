"""Claims about vLLM's defaults that were true of earlier releases and are wrong at the release the content
describes (v0.33.0), found in the content before and fixed: a sentence that makes one again fails here. Each rule
reads one sentence at a time (prose of the chapters, every string of the YAML files); a sentence that speaks of
the past ("was", "earlier", "introduced as", "deprecated") is history and allowed."""

import re
from pathlib import Path

import yaml

from apps.core.content import FIXTURES_DIR

FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(\[])|\n\s*\n|\n\s*[-*|] ")
HISTORY = re.compile(r"\b(was|were|earlier|older|before|prior|until|used to|long the|no longer|deprecated|"
                     r"introduced)\b", re.I)

# name: (why it is wrong at v0.33.0, with the source; the test of one sentence)
RULES = {
    "gpu_memory_utilization defaults to 0.9": (
        "0.92 at v0.33.0 (vllm/config/cache.py: CacheConfig.gpu_memory_utilization)",
        lambda s: bool(((re.search(r"gpu[_-]memory[_-]utilization", s) and re.search(r"\bdefault", s, re.I))
                        or re.search(r"vLLM's [^,;]{0,20}budget", s))
                       and re.search(r"(?<![\d.])0\.90?(?![\d%])", s))),
    "async scheduling as a flag to turn on": (
        "on unless incompatible at v0.33.0 (vllm/config/scheduler.py: SchedulerConfig.async_scheduling, "
        "vllm/config/vllm.py: VllmConfig.__post_init__); say so, or name --no-async-scheduling",
        lambda s: bool(re.search(r"`--async-scheduling`", s) and not re.search(r"default|--no-async-scheduling", s))),
    "deepseek_mtp as a current method": (
        "rewritten to mtp at v0.33.0 (vllm/config/speculative.py: SpeculativeConfig.__post_init__)",
        lambda s: bool(re.search(r"`deepseek_mtp`", s) and not re.search(r"deprecat|rewrit|renam|alias|`mtp`", s))),
}


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def texts(root: Path):
    """(file, text) of every chapter's front matter and body and every YAML file's strings."""
    for path in sorted(root.rglob("*")):
        if path.suffix == ".md":
            text = path.read_text(encoding="utf-8")
            if match := FRONT_MATTER.match(text):
                yield path, "\n\n".join(_strings(yaml.safe_load(match.group(1))))
                text = text[match.end():]
            yield path, text
        elif path.suffix == ".yaml" and path.name != "vllm-flags.yaml":
            yield path, "\n\n".join(_strings(yaml.safe_load(path.read_text(encoding="utf-8"))))


def sentences(text: str) -> list[str]:
    return [" ".join(part.split()) for part in SENTENCE_END.split(text) if part.strip()]


def stale_claims(root: Path = FIXTURES_DIR) -> list[str]:
    return [f"{path.relative_to(root)}: {name} ({why}): {sentence[:160]}"
            for path, text in texts(root) for sentence in sentences(text) if not HISTORY.search(sentence)
            for name, (why, wrong) in RULES.items() if wrong(sentence)]


def test_the_content_makes_none_of_the_stale_claims():
    assert stale_claims() == []


def test_each_rule_catches_the_sentence_it_was_written_for(tmp_path):
    """The sentences as the content had them before they were fixed, and how they read now."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "a.md").write_text(
        "---\nslug: a\n---\n"
        "Llama-3.1-8B BF16 leaves ~69 GB, ~60 GB of it inside vLLM's 0.9 budget. "
        "With `--async-scheduling` the scheduler plans step n+1 while step n is still running. "
        "The methods it accepts are `draft_model`, `ngram`, `eagle` and `deepseek_mtp`.\n")
    (tmp_path / "b.yaml").write_text(
        "- answer: vLLM's 0.92 budget of the 84.98e9 B leaves 60 GB. Async scheduling, on by default, plans ahead "
        "(`--no-async-scheduling` turns it off); `--async-scheduling` was introduced in PR 19970. `deepseek_mtp` is "
        "rewritten to `mtp`. The default gpu_memory_utilization was 0.9 in earlier releases.\n")
    found = stale_claims(tmp_path)
    assert [line.split(" (")[0] for line in found] == [
        "chapters/a.md: gpu_memory_utilization defaults to 0.9", "chapters/a.md: async scheduling as a flag to turn on",
        "chapters/a.md: deepseek_mtp as a current method"]
