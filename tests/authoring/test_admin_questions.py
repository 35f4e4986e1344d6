"""The question editor: answer keys typed as lines per kind, errors on the right field, preview, bulk status."""

import pytest

from apps.courses.models import Chapter, Part
from apps.quiz.models import Question

from .admin_helpers import author, author_web, chapter, form_errors, question_data  # noqa: F401

pytestmark = pytest.mark.django_db
ADD = "/admin/quiz/question/add/"


def test_option_lines_become_the_key(author_web, chapter):  # noqa: F811
    response = author_web.post(ADD, question_data(chapter))
    assert response.status_code == 302, form_errors(response)
    question = Question.objects.get(slug="decode-bound")
    assert question.key == {"options": [
        {"text": "HBM bandwidth", "correct": True, "why": "decode streams the weights once per step"},
        {"text": "Tensor-core FLOPs", "correct": False},
        {"text": "PCIe", "correct": False},
    ]}
    assert question.status == "draft" and question.key_version == 1
    assert list(question.chapters.all()) == [chapter]


def test_two_right_answers_in_single_choice_is_an_error_on_the_options(author_web, chapter):  # noqa: F811
    response = author_web.post(ADD, question_data(chapter, options_text="[x] A\n[x] B\n[ ] C"))
    assert response.status_code == 200
    assert "exactly one correct option (found 2)" in form_errors(response)["options_text"][0]
    assert not Question.objects.exists()


def test_a_line_without_a_mark_names_the_line(author_web, chapter):  # noqa: F811
    response = author_web.post(ADD, question_data(chapter, options_text="[x] A\nB without a mark"))
    assert form_errors(response)["options_text"] == ["line 2: write '[x] right option' or '[ ] wrong option'"]


def test_numeric_fields_become_the_key(author_web, chapter):  # noqa: F811
    data = question_data(chapter, kind="numeric", options_text="", numeric_value="131072", numeric_unit="B",
                         numeric_tolerance="0.02")
    assert author_web.post(ADD, data).status_code == 302
    assert Question.objects.get().key == {"numeric": {"value": 131072, "unit": "B", "tolerance": 0.02,
                                                      "tolerance_mode": "relative"}}


@pytest.mark.parametrize(("overrides", "field", "message"), [
    ({"numeric_unit": "parsecs"}, "numeric_unit", "numeric.unit"),
    ({"numeric_value": "lots"}, "numeric_value", "enter a number"),
    ({"numeric_tolerance": "2"}, "numeric_tolerance", "a relative tolerance is a fraction"),
    ({"numeric_tolerance": ""}, "numeric_tolerance", "tolerance must be present"),
])
def test_numeric_errors_sit_on_their_field(author_web, chapter, overrides, field, message):  # noqa: F811
    data = question_data(chapter, kind="numeric", options_text="", numeric_value="8", numeric_unit="GB",
                         numeric_tolerance="0.05")
    data.update(overrides)
    errors = form_errors(author_web.post(ADD, data))
    assert message in errors[field][0]


def test_ordering_categorize_and_matching_lines(author_web, chapter):  # noqa: F811
    cases = [
        ("ordering", "ordering_text", "Tokenize\nPrefill\nDecode", {"items": ["Tokenize", "Prefill", "Decode"]}),
        ("categorize", "categorize_text", "Compute-bound: Prefill of 4k tokens\nMemory-bound: Decode at batch 1",
         {"bins": ["Compute-bound", "Memory-bound"], "items": [
             {"text": "Prefill of 4k tokens", "bin": "Compute-bound"},
             {"text": "Decode at batch 1", "bin": "Memory-bound"}]}),
        ("matching", "matching_text", "High TTFT => chunked prefill\nOOM => smaller KV cache",
         {"pairs": [{"left": "High TTFT", "right": "chunked prefill"}, {"left": "OOM", "right": "smaller KV cache"}]}),
    ]
    for kind, field, lines, key in cases:
        response = author_web.post(ADD, question_data(chapter, slug=f"q-{kind}", kind=kind, options_text="", **{field: lines}))
        assert response.status_code == 302, form_errors(response)
        assert Question.objects.get(slug=f"q-{kind}").key == key


def test_matching_line_without_arrow_is_reported(author_web, chapter):  # noqa: F811
    data = question_data(chapter, kind="matching", options_text="", matching_text="A => B\nC - D")
    assert form_errors(author_web.post(ADD, data))["matching_text"] == ["line 2: write 'left => right'"]


def test_change_form_shows_key_as_lines_preview_and_view_on_site(author_web, chapter):  # noqa: F811
    author_web.post(ADD, question_data(chapter))
    question = Question.objects.get()
    page = author_web.get(f"/admin/quiz/question/{question.pk}/change/").content.decode()
    assert "[x] HBM bandwidth\n    why: decode streams the weights once per step\n[ ] Tensor-core FLOPs" in page
    assert "What bounds <strong>decode</strong> at batch 1?" in page  # the rendered preview
    assert f'href="/practice/checks/{question.pk}"' in page


def test_wording_edit_keeps_key_version_and_key_edit_bumps_it(author_web, chapter):  # noqa: F811
    author_web.post(ADD, question_data(chapter))
    question = Question.objects.get()
    url = f"/admin/quiz/question/{question.pk}/change/"
    assert author_web.post(url, question_data(chapter, prompt="Reworded?")).status_code == 302
    question.refresh_from_db()
    assert (question.prompt, question.key_version) == ("Reworded?\n", 1)
    changed = question_data(chapter, prompt="Reworded?", options_text="[ ] HBM bandwidth\n[x] Tensor-core FLOPs\n[ ] PCIe")
    assert author_web.post(url, changed).status_code == 302
    question.refresh_from_db()
    assert question.key_version == 2 and question.key["options"][1]["correct"] is True


def test_raw_json_key_still_works_for_open_questions(author_web, chapter):  # noqa: F811
    response = author_web.post(ADD, question_data(chapter, kind="open", options_text="", key="{}"))
    assert response.status_code == 302, form_errors(response)
    assert Question.objects.get().key == {}


def test_bulk_publish_and_unpublish_record_history(author_web, author, chapter):  # noqa: F811
    author_web.post(ADD, question_data(chapter))
    author_web.post(ADD, question_data(chapter, slug="second"))
    ids = list(Question.objects.values_list("pk", flat=True))
    author_web.post("/admin/quiz/question/", {"action": "publish", "_selected_action": ids})
    assert set(Question.objects.values_list("status", flat=True)) == {"published"}
    latest = Question.objects.get(slug="second").history.first()
    assert (latest.status, latest.history_user) == ("published", author)
    author_web.post("/admin/quiz/question/", {"action": "unpublish", "_selected_action": ids[:1]})
    assert Question.objects.get(pk=ids[0]).status == "draft"


def test_list_filters_and_search(author_web, chapter):  # noqa: F811
    author_web.post(ADD, question_data(chapter))
    author_web.post(ADD, question_data(chapter, slug="kv-size", kind="numeric", options_text="", numeric_value="2",
                                        numeric_unit="GiB", numeric_tolerance="0.05", prompt="KV cache size?"))
    other = Chapter.objects.create(slug="tp", part=Part.objects.create(slug="scale", title="Scale", order=2), order=1,
                                   title="TP", summary="s.", body="b")
    author_web.post(ADD, question_data(other, slug="elsewhere"))
    base = "/admin/quiz/question/"
    assert author_web.get(base + "?kind__exact=numeric").context["cl"].result_count == 1
    assert author_web.get(base + "?q=kv+cache").context["cl"].result_count == 1
    assert author_web.get(base + f"?chapters__part__id__exact={chapter.part_id}").context["cl"].result_count == 2
    assert author_web.get(base + "?status__exact=published").context["cl"].result_count == 0
