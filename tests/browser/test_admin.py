"""An author writes a draft question in the admin, previews it, publishes it; a learner then practises it."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "correct-horse-battery-9"


@pytest.fixture
def small_curriculum(make_user):
    from apps.courses.models import Chapter, Part

    author = make_user("writer", password=PASSWORD, author=True)
    author.is_staff = True
    author.save(update_fields=["is_staff"])
    part = Part.objects.create(slug="serving-basics", title="Serving basics", order=1)
    Chapter.objects.create(slug="decode-basics", part=part, order=1, title="Decode basics", summary="s.",
                           body="## Decode\n\nOne token per step.\n", objectives=["Explain decode"])
    return part


def test_author_publishes_a_question_that_a_learner_then_practises(live_server, page, small_curriculum):
    from apps.quiz.models import Question

    page.goto(f"{live_server.url}/admin/login/?next=/admin/quiz/question/add/")
    page.fill("#id_username", "writer")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")

    page.fill("#id_slug", "decode-bottleneck")
    page.select_option("#id_status", "draft")
    page.select_option("#id_kind", "single_choice")
    page.select_option("#id_level", "core")
    page.fill("#id_prompt", "What limits **decode** at batch size 1?")
    page.fill("#id_answer", "Reading the weights from HBM once per token.")
    page.fill("#id_options_text", "[x] HBM bandwidth\n[ ] Tensor-core FLOPs\n[ ] Tokenizer speed")
    page.locator("#id_chapters_from option", has_text="decode-basics").dblclick()
    page.click("input[name=_continue]")

    # The change page: saved as a draft, with the rendered preview beside the editor.
    preview = page.locator(".quiz-preview")
    preview.wait_for()
    assert "What limits decode at batch size 1?" in preview.inner_text()
    assert preview.locator("strong", has_text="decode").count() == 1
    assert "Tensor-core FLOPs" in preview.inner_text()
    question = Question.objects.get(slug="decode-bottleneck")
    assert question.status == "draft" and question.key["options"][0] == {"text": "HBM bandwidth", "correct": True}

    # Publish with the bulk action on the list.
    page.goto(f"{live_server.url}/admin/quiz/question/")
    page.check(f"input[name=_selected_action][value='{question.pk}']")
    page.select_option("select[name=action]", "publish")
    page.click("button[name=index]")
    page.get_by_text("1 item(s) published.").wait_for()
    question.refresh_from_db()
    assert question.status == "published"

    # A learner (a fresh browser session) signs up and practises the part: the new question comes up.
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/signup")
    page.get_by_label("Username").fill("student")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.get_by_test_id("signed-in-as").wait_for()
    page.goto(f"{live_server.url}/practice")
    page.get_by_label("Part").select_option(label="Serving basics")
    page.get_by_role("button", name="Start practice").click()
    runner = page.get_by_test_id("runner")
    runner.wait_for()
    assert "What limits decode at batch size 1?" in runner.inner_text()
    assert "HBM bandwidth" in runner.inner_text()
    assert page.get_by_test_id("progress").inner_text() == "Question 1 of 1"
