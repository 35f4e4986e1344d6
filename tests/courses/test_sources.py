"""Chapters carry a `sources:` list in their front matter: loaded, validated and exported back unchanged."""

import textwrap

import pytest

from apps.core import content
from apps.core.content import ContentInvalid, load_all
from apps.core.content_export import export_all
from apps.courses.models import Chapter

pytestmark = pytest.mark.django_db

CURRICULUM_STEPS = [step for step in content.STEPS if step.name.startswith(("apps.courses.", "apps.glossary."))]


@pytest.fixture
def curriculum_only(monkeypatch):
    monkeypatch.setattr(content, "STEPS", CURRICULUM_STEPS)


def tree(tmp_path, sources_yaml: str):
    root = tmp_path / "fixtures"
    (root / "chapters" / "basics").mkdir(parents=True)
    (root / "parts.yaml").write_text("- slug: basics\n  title: Basics\n  order: 1\n", encoding="utf-8")
    (root / "chapters" / "basics" / "01-alpha.md").write_text(
        "---\nslug: alpha\ntitle: Alpha\npart: basics\norder: 1\nsummary: About alpha.\n"
        + textwrap.dedent(sources_yaml)
        + "---\nBody.\n",
        encoding="utf-8",
    )
    return root


def test_sources_are_loaded_and_exported_in_the_front_matter(tmp_path, curriculum_only):
    root = tree(tmp_path, "sources:\n- 'vLLM v0.33.0, vllm/config/cache.py: CacheConfig.gpu_memory_utilization'\n")
    load_all(root)
    assert Chapter.objects.get(slug="alpha").sources == ["vLLM v0.33.0, vllm/config/cache.py: CacheConfig.gpu_memory_utilization"]
    export_all(tmp_path / "out", fixtures=root)
    exported = (tmp_path / "out" / "chapters" / "basics" / "01-alpha.md").read_text(encoding="utf-8")
    assert "sources:\n- 'vLLM v0.33.0, vllm/config/cache.py: CacheConfig.gpu_memory_utilization'\n" in exported


def test_a_chapter_without_sources_exports_no_sources_key(tmp_path, curriculum_only):
    load_all(tree(tmp_path, ""))
    export_all(tmp_path / "out", fixtures=tmp_path / "fixtures")
    assert "sources" not in (tmp_path / "out" / "chapters" / "basics" / "01-alpha.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("bad", ["sources: a string\n", "sources:\n- ''\n", "sources:\n- 3\n", "sources:\n- '  '\n"])
def test_sources_must_be_a_list_of_non_empty_strings(tmp_path, curriculum_only, bad):
    with pytest.raises(ContentInvalid) as caught:
        load_all(tree(tmp_path, bad))
    assert "sources must be a list of non-empty strings" in str(caught.value)
    assert Chapter.objects.count() == 0
