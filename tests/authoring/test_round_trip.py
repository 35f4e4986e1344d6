"""Content round trip: export → load into an empty database → export gives the same bytes; the loader lists
every error with file and line and changes nothing when there is one."""

from pathlib import Path

import pytest
from django.core.management import call_command

from apps.core.content import FIXTURES_DIR, ContentInvalid, load_all
from apps.core.content_export import export_all
from apps.courses.models import Chapter, Part
from apps.glossary.models import Term
from apps.quiz.models import DiagnosisScenario, NumberToMemorize, Question, Topic
from apps.simulators.models import GPU, ModelConfig

from .test_memory_rules import write_tree

pytestmark = pytest.mark.django_db
CONTENT_MODELS = (Question, NumberToMemorize, DiagnosisScenario, Topic, Term, Chapter, Part, GPU, ModelConfig)


def empty_content() -> None:
    for model in CONTENT_MODELS:
        model.objects.all().delete()


def files(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.slow
def test_real_fixtures_survive_export_load_export_byte_for_byte(tmp_path):
    counts = load_all(FIXTURES_DIR)
    call_command("export_content", out=str(tmp_path / "a"), verbosity=0)
    empty_content()
    assert load_all(tmp_path / "a") == counts
    export_all(tmp_path / "b")
    first, second = files(tmp_path / "a"), files(tmp_path / "b")
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []
    # Every source file kind is there, and each term went back to the file it came from.
    real_glossary = {p.name for p in (FIXTURES_DIR / "glossary").glob("*.yaml")}
    assert {Path(name).name for name in first if name.startswith("glossary/")} == real_glossary
    assert {"parts.yaml", "numbers.yaml", "diagnosis.yaml", "catalog/models.yaml", "catalog/gpus.yaml"} <= first.keys()
    assert sum(name.startswith("chapters/") for name in first) == counts["chapters"]


def test_drafts_and_source_files_round_trip(tmp_path):
    root = write_tree(tmp_path / "in", ["kept"])
    (root / "glossary").mkdir()
    (root / "glossary" / "Z.yaml").write_text(
        "- slug: itl\n  status: draft\n  term: Inter-token latency\n  aliases: [ITL]\n"
        "  definition: Time between two tokens.\n  chapters: [decode-basics]\n")
    load_all(root)
    term = Term.objects.get(slug="itl")
    assert (term.status, term.source_file) == ("draft", "glossary/Z.yaml")
    assert Question.objects.get(slug="kept").source_file == "questions/q.yaml"
    export_all(tmp_path / "out")
    text = (tmp_path / "out" / "glossary" / "Z.yaml").read_text()
    assert text.startswith("- slug: itl\n  status: draft\n  term: Inter-token latency\n")
    assert "status" not in (tmp_path / "out" / "questions" / "q.yaml").read_text()


def test_export_writes_exponent_floats_that_load_back_as_numbers(tmp_path):
    load_all(write_tree(tmp_path / "in", ["kept"]))
    GPU.objects.filter(slug="h100-sxm").update(memory_bytes=8e22)
    export_all(tmp_path / "out")
    assert "memory_bytes: 8.0e+22\n" in (tmp_path / "out" / "catalog" / "gpus.yaml").read_text()
    empty_content()
    load_all(tmp_path / "out")
    assert GPU.objects.get(slug="h100-sxm").memory_bytes == 8e22


def test_every_error_is_reported_with_file_and_line_and_nothing_changes(tmp_path):
    root = write_tree(tmp_path / "in", ["kept"])
    load_all(root)
    before = {model.__name__: sorted(model.objects.values_list("pk", "slug")) for model in CONTENT_MODELS}
    (root / "parts.yaml").write_text("- slug: serving\n  title: Renamed\n  order: 1\n- slug: broken\n  order: 2\n")
    (root / "questions" / "q.yaml").write_text(
        "- slug: kept\n  kind: open\n  level: core\n  chapters: [decode-basics]\n  prompt: P\n  answer: A\n"
        "- slug: bad-level\n  kind: open\n  level: expert\n  chapters: [decode-basics]\n  prompt: P\n  answer: A\n"
        "- slug: bad-status\n  status: hidden\n  kind: open\n  level: core\n  chapters: [decode-basics]\n"
        "  prompt: P\n  answer: A\n")
    with pytest.raises(ContentInvalid) as caught:
        load_all(root)
    messages = [str(error) for error in caught.value.errors]
    assert messages == [
        "in/parts.yaml:4: missing required field 'title'",
        "in/questions/q.yaml:7: question 'bad-level': level: must be one of core, mid, senior, staff",
        "in/questions/q.yaml:13: status must be one of draft, published",
    ]
    assert {model.__name__: sorted(model.objects.values_list("pk", "slug")) for model in CONTENT_MODELS} == before
    assert Part.objects.get(slug="serving").title == "Serving"


def test_unknown_status_in_chapter_front_matter_is_an_error(tmp_path):
    root = write_tree(tmp_path / "in", [])
    path = root / "chapters" / "serving" / "01-decode-basics.md"
    path.write_text(path.read_text().replace("order: 1\n", "order: 1\nstatus: later\n"))
    with pytest.raises(ContentInvalid) as caught:
        load_all(root)
    assert "in/chapters/serving/01-decode-basics.md:2: status must be one of draft, published" in map(str, caught.value.errors)
