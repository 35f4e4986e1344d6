"""Each chapter's first diagram is about the chapter's subject: the diagram types are mapped to chapters on purpose
(the sampling chapter shows sampling, not speculative decoding), and no one diagram stands in for every chapter."""

from collections import Counter

from apps.core.content import FIXTURES_DIR
from apps.core.diagrams import DIAGRAM_FENCE, DIAGRAMS

# The chapters whose subject is what a diagram type shows, and that type.
FIRST = {
    "inside-the-model/01-tokens-and-tokenization.md": "tokenization",
    "inside-the-model/03-attention.md": "kv-growth",
    "inside-the-model/05-sampling.md": "sampling",
    "inside-the-model/06-prefill-vs-decode.md": "prefill-decode",
    "one-request-one-gpu/03-roofline.md": "roofline",
    "one-request-one-gpu/04-decode-memory-wall.md": "prefill-decode",
    "one-request-one-gpu/06-kv-cache-sizing.md": "kv-growth",
    "many-requests-one-engine/01-continuous-batching.md": "batching-stepper",
    "many-requests-one-engine/02-paged-attention.md": "paged-blocks",
    "many-requests-one-engine/03-chunked-prefill.md": "batching-stepper",
    "many-requests-one-engine/04-the-scheduler.md": "batching-stepper",
    "many-requests-one-engine/05-prefix-caching.md": "prefix-hash-chain",
    "inside-vllm/02-vllm-scheduler-and-cuda-graphs.md": "batching-stepper",
    "faster-and-cheaper/01-quantization.md": "memory-breakdown",
    "faster-and-cheaper/02-speculative-decoding.md": "speculative",
    "faster-and-cheaper/03-structured-output.md": "sampling",
    "scaling-out/01-parallelism-strategies.md": "tp-allreduce",
    "scaling-out/04-pd-disaggregation.md": "pd-transfer",
    "scaling-out/05-moe-serving.md": "moe-load",
    "production/03-autoscaling-and-cold-starts.md": "autoscaling",
    "production/06-cost-and-capacity.md": "token-cost",
}
# Diagrams that show one technique, placed only where that technique is the subject.
ONLY_IN = {"speculative": {"faster-and-cheaper/02-speculative-decoding.md"}}


def first_diagrams() -> dict[str, str]:
    out = {}
    for path in sorted((FIXTURES_DIR / "chapters").rglob("*.md")):
        match = DIAGRAM_FENCE.search(path.read_text(encoding="utf-8"))
        if match:
            out[path.relative_to(FIXTURES_DIR / "chapters").as_posix()] = match.group(1).split()[0]
    return out


def test_each_chapter_opens_with_the_diagram_of_its_subject():
    firsts = first_diagrams()
    assert {chapter: firsts.get(chapter) for chapter in FIRST} == FIRST


def test_a_technique_diagram_appears_only_in_its_chapter_and_no_type_stands_in_everywhere():
    placed: dict[str, set[str]] = {}
    for path in sorted((FIXTURES_DIR / "chapters").rglob("*.md")):
        for match in DIAGRAM_FENCE.finditer(path.read_text(encoding="utf-8")):
            placed.setdefault(match.group(1).split()[0], set()).add(path.relative_to(FIXTURES_DIR / "chapters").as_posix())
    for name, chapters in ONLY_IN.items():
        assert placed[name] <= chapters, name
    assert "sampling" in DIAGRAMS and placed["sampling"]
    counts = Counter(first_diagrams().values())
    assert counts.most_common(1)[0][1] <= 8, counts
    assert counts["prefill-decode"] <= 6, counts
