"""Live diagrams in chapter Markdown: the loader checks each ```diagram block (file and line), the renderer turns it
into a placeholder that survives the sanitizer, and the web client's copy of the registry is as generated."""

import json
import re
import textwrap

import pytest

from apps.core import content
from apps.core.content import ContentInvalid, load_all
from apps.core.diagrams import DIAGRAMS, diagram_errors
from apps.core.management.commands.export_diagrams import TARGET, diagrams_json
from apps.core.registry import SIMULATORS
from apps.core.rendering import render_markdown
from apps.courses.models import Chapter

CURRICULUM_STEPS = [step for step in content.STEPS if step.name.startswith(("apps.courses.", "apps.glossary."))]


def test_the_web_client_reads_the_diagram_registry_as_generated():
    assert TARGET.read_text(encoding="utf-8") == diagrams_json(), "run: python manage.py export_diagrams"


def test_every_diagram_opens_a_lab_page_and_has_valid_defaults():
    for name, spec in DIAGRAMS.items():
        assert spec["lab"] in SIMULATORS, name
        assert spec["title"] and spec["caption"], name
        for key, param in spec["params"].items():
            if param["kind"] in ("int", "float"):
                assert param["min"] <= param["default"] <= param["max"], (name, key)
            if param["kind"] == "choice":
                assert param["default"] in param["choices"], (name, key)


def test_a_diagram_block_renders_to_a_placeholder_with_a_static_fallback():
    html = render_markdown("Intro.\n\n```diagram kv-growth model=llama-3.1-8b context_tokens=4096\n```\n\nAfter.\n")
    figure = re.search(r'<figure class="diagram" data-diagram="kv-growth" data-params="([^"]*)">(.*?)</figure>', html, re.S)
    assert figure, html
    params = json.loads(figure.group(1).replace("&quot;", '"'))
    assert params == {"model": "llama-3.1-8b", "context_tokens": 4096}
    assert "<figcaption>" in figure.group(2) and "diagram-fallback" in figure.group(2)
    assert 'href="/lab/kv-cache"' in figure.group(2)
    assert "<p>After.</p>" in html


def test_the_sanitizer_keeps_only_the_diagram_attributes():
    html = render_markdown('<figure class="diagram" data-diagram="x" data-params="{}" onclick="evil()" style="color:red">'
                           "<script>alert(1)</script></figure>")
    assert 'data-diagram="x"' in html and 'data-params="{}"' in html
    assert "onclick" not in html and "style" not in html and "<script" not in html


def test_directive_errors_name_the_line():
    text = "one\n\n```diagram kv-growth modl=x context_tokens=abc\n```\n\n```diagram warp-drive\n```\n\n```diagram roofline gpu=tpu-v9\n```\n"
    assert diagram_errors(text, models={"llama-3.1-8b"}, gpus={"h100-sxm"}) == [
        (3, "unknown parameter 'modl' for diagram 'kv-growth'; use model, context_tokens, kv_dtype"),
        (3, "parameter 'context_tokens' must be an integer, not 'abc'"),
        (6, f"unknown diagram 'warp-drive'; use one of {', '.join(sorted(DIAGRAMS))}"),
        (9, "unknown gpu 'tpu-v9' in diagram 'roofline'; the catalog has h100-sxm"),
    ]


@pytest.mark.django_db
def test_the_loader_reports_diagram_errors_with_file_and_line(tmp_path, monkeypatch):
    monkeypatch.setattr(content, "STEPS", CURRICULUM_STEPS)
    root = tmp_path / "fixtures"
    (root / "chapters" / "basics").mkdir(parents=True)
    (root / "catalog").mkdir()
    (root / "catalog" / "models.yaml").write_text("- slug: llama-3.1-8b\n", encoding="utf-8")
    (root / "catalog" / "gpus.yaml").write_text("- slug: h100-sxm\n", encoding="utf-8")
    (root / "parts.yaml").write_text("- slug: basics\n  title: Basics\n  order: 1\n", encoding="utf-8")
    chapter = textwrap.dedent("""\
        ---
        slug: alpha
        title: Alpha
        part: basics
        order: 1
        summary: About alpha.
        ---
        ## Section

        ```diagram kv-growth model=llama-3.1-8b
        ```

        ```diagram kv-growth model=gpt-9
        ```

        ```diagram warp-drive speed=9
        ```
        """)
    (root / "chapters" / "basics" / "01-alpha.md").write_text(chapter, encoding="utf-8")

    with pytest.raises(ContentInvalid) as caught:
        load_all(root)

    message = str(caught.value)
    assert "chapters/basics/01-alpha.md:13: unknown model 'gpt-9' in diagram 'kv-growth'" in message
    assert "chapters/basics/01-alpha.md:16: unknown diagram 'warp-drive'" in message
    assert ":10:" not in message
    assert Chapter.objects.count() == 0

    (root / "chapters" / "basics" / "01-alpha.md").write_text(chapter.split("```diagram kv-growth model=gpt-9")[0], encoding="utf-8")
    load_all(root)
    assert 'data-diagram="kv-growth"' in Chapter.objects.get(slug="alpha").body_html


def test_every_chapter_in_the_content_places_a_diagram_and_sixteen_types_are_used():
    from apps.core.content import FIXTURES_DIR
    from apps.core.diagrams import DIAGRAM_FENCE

    used: dict[str, set[str]] = {}
    for path in sorted((FIXTURES_DIR / "chapters").rglob("*.md")):
        used[path.relative_to(FIXTURES_DIR).as_posix()] = {
            match.group(1).split()[0] for match in DIAGRAM_FENCE.finditer(path.read_text(encoding="utf-8"))}
    assert [name for name, types in used.items() if not types] == []
    assert len(set().union(*used.values())) >= 16
