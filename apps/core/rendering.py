"""Markdown to sanitized HTML, with glossary terms marked for hover definitions."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser

import markdown
import nh3

from apps.core.diagrams import DIAGRAMS, diagram_uses

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em", "figcaption",
    "figure", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "span", "strong",
    "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title"},
    "th": {"align"},
    "td": {"align"},
    "code": {"class"},
    "span": {"class"},
    "div": {"class"},
    "h2": {"id"},
    "h3": {"id"},
    "h4": {"id"},
    # Live diagrams: the placeholder the reader mounts a component on (see apps.core.diagrams.DIAGRAMS).
    "figure": {"class", "data-diagram", "data-params"},
}


def render_markdown(text: str, *, attribute_filter=None) -> str:
    """CommonMark-ish Markdown (tables, fenced code, heading ids) to HTML that is safe to insert in a page.

    ``attribute_filter(element, attribute, value)`` may narrow it further: it returns the value to keep, or None to
    drop the attribute (learners' own cards keep only images of their uploads this way)."""
    text = render_diagram_blocks(text)
    raw = markdown.markdown(text, extensions=["tables", "fenced_code", "sane_lists", "toc"], output_format="html")
    return nh3.clean(raw, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes={"http", "https", "mailto"},
                     link_rel="noopener noreferrer", attribute_filter=attribute_filter)


def _diagram_figure(name: str, params: dict) -> str:
    spec = DIAGRAMS[name]
    full = {key: params.get(key, param["default"]) for key, param in spec["params"].items()}
    setup = " · ".join(f"{key.replace('_', ' ')} {value}" for key, value in full.items())
    data = html.escape(json.dumps(params, sort_keys=True, separators=(",", ":")), quote=True)
    return (
        f'\n\n<figure class="diagram" data-diagram="{name}" data-params="{data}">'
        f'<figcaption><strong>{html.escape(spec["title"])}</strong> {html.escape(spec["caption"])}</figcaption>'
        f'<div class="diagram-fallback">Live diagram ({html.escape(setup)}); '
        f'<a href="/lab/{spec["lab"]}">open it in the Lab</a>.</div></figure>\n\n'
    )


def render_diagram_blocks(text: str) -> str:
    """Each valid ```diagram block becomes a <figure class="diagram"> placeholder with a static fallback inside;
    an invalid one is left as a code block (the loader and the authoring API report it with its line)."""
    if "```diagram" not in text:
        return text
    out, last = [], 0
    for use in diagram_uses(text):
        if use.errors:
            continue
        start, end = use.span
        out += [text[last:start], _diagram_figure(use.name, use.params)]
        last = end
    out.append(text[last:])
    return "".join(out)


@dataclass(frozen=True)
class GlossaryEntry:
    slug: str
    names: tuple[str, ...]  # term and aliases
    definition: str


SKIP_TAGS = {"figure", "code", "pre", "a", "h1", "h2", "h3", "h4", "h5", "h6", "abbr", "kbd"}
SECTION_TAGS = {"h2", "h3"}


class _Marker(HTMLParser):
    """Wraps the first mention per section of each glossary term in a span the reader turns into a hover card."""

    def __init__(self, pattern: re.Pattern, by_name: dict[str, GlossaryEntry]):
        super().__init__(convert_charrefs=False)
        self.pattern = pattern
        self.by_name = by_name
        self.out: list[str] = []
        self.stack: list[str] = []
        self.used_in_section: set[str] = set()

    def handle_starttag(self, tag, attrs):
        if tag in SECTION_TAGS:
            self.used_in_section = set()
        self.out.append(self.get_starttag_text())
        if tag not in {"br", "hr", "img"}:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.out.append(self.get_starttag_text())

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass
        self.out.append(f"</{tag}>")

    def handle_entityref(self, name):
        self.out.append(f"&{name};")

    def handle_charref(self, name):
        self.out.append(f"&#{name};")

    def handle_data(self, data):
        if any(tag in SKIP_TAGS for tag in self.stack):
            self.out.append(data)
            return
        self.out.append(self.pattern.sub(self._replace, data))

    def _replace(self, match: re.Match) -> str:
        text = match.group(0)
        entry = self.by_name.get(text.lower()) or self.by_name.get(text)
        if entry is None or entry.slug in self.used_in_section:
            return text
        self.used_in_section.add(entry.slug)
        return (
            f'<span class="glossary-term" data-term="{html.escape(entry.slug)}" tabindex="0" '
            f'title="{html.escape(entry.definition)}">{text}</span>'
        )


def mark_glossary_terms(body_html: str, entries: list[GlossaryEntry]) -> str:
    by_name: dict[str, GlossaryEntry] = {}
    for entry in entries:
        for name in entry.names:
            if len(name) < 2:
                continue
            # Acronyms match case-sensitively (so "ITL" but not "itl"); words case-insensitively.
            by_name[name if name.isupper() else name.lower()] = entry
    if not by_name:
        return body_html
    names = sorted(by_name, key=len, reverse=True)
    alternatives = "|".join(re.escape(name) if name.isupper() else f"(?i:{re.escape(name)})" for name in names)
    pattern = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")
    marker = _Marker(pattern, by_name)
    marker.feed(body_html)
    marker.close()
    return "".join(marker.out)
