"""fixtures/ is in the exporter's canonical format: a fresh database loaded from it exports the same bytes."""

from pathlib import Path

import pytest
from django.core.management import call_command

from apps.core.content import FIXTURES_DIR, load_all
from apps.core.content_export import leading_comment

pytestmark = pytest.mark.django_db


def files(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.slow
def test_export_of_the_real_fixtures_reproduces_them_byte_for_byte(tmp_path):
    load_all(FIXTURES_DIR)
    call_command("export_content", out=str(tmp_path), verbosity=0)
    ours, exported = files(FIXTURES_DIR), files(tmp_path)
    assert sorted(exported) == sorted(ours)
    assert [name for name in ours if ours[name] != exported[name]] == []
    assert len(ours) >= 76, "the real content tree, not an empty one"


def test_header_comment_is_kept_and_other_comments_are_not(tmp_path):
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "parts.yaml").write_text("# Parts.\n# Second line.\n\n- slug: x  # dropped\n")
    assert leading_comment((tmp_path / "fixtures" / "parts.yaml").read_text()) == "# Parts.\n# Second line.\n\n"
    assert leading_comment("- slug: x\n# not a header\n") == ""
    from apps.core.content_export import export_all

    written = export_all(tmp_path / "out", fixtures=tmp_path / "fixtures")
    parts = tmp_path / "out" / "parts.yaml"
    assert parts in written
    assert parts.read_text().startswith("# Parts.\n# Second line.\n\n")
    assert "dropped" not in parts.read_text()


def test_saving_a_question_in_the_admin_keeps_line_endings_as_typed(client, tmp_path):
    from django.contrib.auth.models import User

    from apps.core.content_export import export_all
    from apps.quiz.models import Question

    question = Question.objects.create(slug="line-endings", kind="open", level="core", prompt="P\n", answer="A\n",
                                       source_file="questions/q.yaml")
    client.force_login(User.objects.create_superuser("author", "author@example.com", "correct-horse-battery-9"))
    # what a browser sends for a textarea: CRLF line breaks
    form = {"slug": question.slug, "status": "published", "kind": "open", "level": "core",
            "prompt": "Line one\r\n\r\nLine two", "answer": "First\r\n- a\r\n- b", "key": "{}",
            "source_file": "questions/q.yaml"}
    response = client.post(f"/admin/quiz/question/{question.id}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    question.refresh_from_db()
    assert "\r" not in question.prompt and "\r" not in question.answer
    assert question.prompt.startswith("Line one\n\nLine two") and question.answer.startswith("First\n- a\n- b")
    export_all(tmp_path, fixtures=tmp_path / "none")
    text = (tmp_path / "questions" / "q.yaml").read_bytes()
    assert b"\r" not in text and b"Line two" in text
