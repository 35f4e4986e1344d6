"""One colour language: every diagram and Lab page colours a concept from the one map (frontend/src/lib/concepts.ts).

The chapter diagrams (frontend/src/diagrams/) and the Lab's pages (frontend/src/areas/lab/) may not write a colour
literal (a hex code, rgb()/hsl(), or the raw custom property var(--c-...)): a concept's colour comes from the map
(conceptColor("kv"), color("kv") in the diagrams' kit, C.kv in the Lab's charts). And a series or legend entry named
after a concept ("memory roof", "Compute", "KV usage", "prefill step") is drawn in that concept's colour, so blue can
never be compute in a chapter and memory in the Lab."""

import re
from pathlib import Path

FRONTEND = Path(__file__).resolve().parents[2] / "frontend" / "src"
SOURCES = sorted([*(FRONTEND / "diagrams").rglob("*.ts*"), *(FRONTEND / "areas" / "lab").rglob("*.ts*")])
MAP = FRONTEND / "lib" / "concepts.ts"

LITERAL = re.compile(r"""["'`](?:#[0-9a-fA-F]{3,8}|(?:rgba?|hsla?)\(|var\(--[cd]-)""")
# The word a label starts with, and the concept it names.
WORDS = {
    "prefill": "prefill", "decode": "decode", "kv": "kv", "weights": "weights", "weight": "weights",
    "tokens": "tokens", "token": "tokens", "compute": "compute", "memory": "memory", "communication": "communication",
    "waste": "waste", "idle": "waste", "free": "waste", "activations": "activations",
}
OBJECT = re.compile(r"\{[^{}]*\}")
LABEL = re.compile(r"""\blabel:\s*(["'`])([^"'`]*)\1""")
COLOUR = re.compile(r"""\bcolor:\s*C\.(\w+)|\bconcept:\s*["'](\w+)["']""")


def concepts_in_map() -> set[str]:
    block = MAP.read_text().split("export const CONCEPTS", 1)[1].split("};", 1)[0]
    return set(re.findall(r"^\s+(\w+): \{ label:", block, re.M))


def test_the_map_defines_every_concept_the_issue_names_with_a_distinct_colour():
    text = MAP.read_text()
    concepts = concepts_in_map()
    assert {"prefill", "decode", "kv", "weights", "tokens", "compute", "memory", "communication", "waste"} <= concepts
    colours = re.findall(r'color: "(#[0-9a-fA-F]{6})"', text)
    assert len(colours) == len(concepts) == len(set(c.lower() for c in colours))


def test_no_diagram_or_lab_page_writes_a_colour_literal():
    offenders = []
    for path in SOURCES:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if LITERAL.search(line):
                offenders.append(f"{path.relative_to(FRONTEND)}:{number}: {line.strip()[:120]}")
    assert not offenders, "colour a concept from lib/concepts.ts, not a literal:\n" + "\n".join(offenders)


def test_a_series_named_after_a_concept_is_drawn_in_that_concepts_colour():
    known = concepts_in_map()
    offenders, checked = [], 0
    for path in SOURCES:
        for obj in OBJECT.findall(path.read_text()):
            label, colour = LABEL.search(obj), COLOUR.search(obj)
            if not label or not colour:
                continue
            concept = colour.group(1) or colour.group(2)
            assert concept in known, f"{path.name}: unknown concept {concept!r} in {obj.strip()[:100]}"
            first = re.split(r"[^a-z]+", label.group(2).lower().lstrip("$ "), maxsplit=1)[0]
            named = WORDS.get(first)
            if named is None:
                continue
            checked += 1
            if named != concept:
                offenders.append(f"{path.relative_to(FRONTEND)}: {label.group(2)!r} is drawn as {concept!r}, not {named!r}")
    assert checked > 10  # the scan sees the legends it is meant to see
    assert not offenders, "\n".join(offenders)
