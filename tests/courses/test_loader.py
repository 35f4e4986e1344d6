import textwrap

import pytest

from apps.core import content
from apps.core.content import ContentInvalid, load_all
from apps.courses.models import Chapter, Part
from apps.glossary.models import Term

pytestmark = pytest.mark.django_db

CURRICULUM_STEPS = [step for step in content.STEPS if step.name.startswith(("apps.courses.", "apps.glossary."))]


@pytest.fixture
def curriculum_only(monkeypatch):
    """A tiny tree holds only parts and chapters; the other apps' steps would look for their own files."""
    monkeypatch.setattr(content, "STEPS", CURRICULUM_STEPS)


def write_chapter(root, part: str, order: int, slug: str, title: str, prerequisites: list[str]) -> None:
    folder = root / "chapters" / part
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{order:02d}-{slug}.md").write_text(
        textwrap.dedent(
            f"""\
            ---
            slug: {slug}
            title: "{title}"
            part: {part}
            order: {order}
            summary: "About {slug}."
            prerequisites: [{", ".join(prerequisites)}]
            ---
            ## Section

            Body of {slug}.
            """
        ),
        encoding="utf-8",
    )


def test_loader_rejects_a_prerequisite_cycle_naming_the_chapters(tmp_path, curriculum_only):
    root = tmp_path / "fixtures"
    root.mkdir()
    (root / "parts.yaml").write_text("- slug: basics\n  title: Basics\n  order: 1\n", encoding="utf-8")
    write_chapter(root, "basics", 1, "alpha", "Alpha chapter", ["gamma"])
    write_chapter(root, "basics", 2, "beta", "Beta chapter", ["alpha"])
    write_chapter(root, "basics", 3, "gamma", "Gamma chapter", ["beta"])

    with pytest.raises(ContentInvalid) as caught:
        load_all(root)

    message = str(caught.value)
    assert "cycle" in message
    for title in ("Alpha chapter", "Beta chapter", "Gamma chapter"):
        assert f"'{title}'" in message
    assert Chapter.objects.count() == 0 and Part.objects.count() == 0


def test_loader_accepts_the_same_tree_without_the_cycle(tmp_path, curriculum_only):
    root = tmp_path / "fixtures"
    root.mkdir()
    (root / "parts.yaml").write_text("- slug: basics\n  title: Basics\n  order: 1\n", encoding="utf-8")
    write_chapter(root, "basics", 1, "alpha", "Alpha chapter", [])
    write_chapter(root, "basics", 2, "beta", "Beta chapter", ["alpha"])
    counts = load_all(root)
    assert counts["chapters"] == 2
    assert list(Chapter.objects.get(slug="beta").prerequisites.values_list("slug", flat=True)) == ["alpha"]


@pytest.mark.slow
def test_real_fixtures_load_twice_with_identical_counts():
    first = load_all()
    snapshot = (Part.objects.count(), Chapter.objects.count(), Term.objects.count())
    second = load_all()
    assert first == second
    assert (Part.objects.count(), Chapter.objects.count(), Term.objects.count()) == snapshot
    assert snapshot[0] >= 8
    assert snapshot[1] >= 37
    assert snapshot[2] >= 150
    assert not Term.objects.filter(chapters=None).exists(), "every glossary term links to at least one chapter"
    assert not Chapter.objects.filter(body_html="").exists()
