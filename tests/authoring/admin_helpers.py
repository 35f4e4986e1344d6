"""Small content and personas for the admin tests: an author (staff, in `authors`), a learner, a part and a chapter."""

import pytest

CHOICE_LINES = "[x] HBM bandwidth\n    why: decode streams the weights once per step\n[ ] Tensor-core FLOPs\n[ ] PCIe"


@pytest.fixture
def author(make_user):
    user = make_user("author1", author=True)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def author_web(author, client):
    client.force_login(author)
    return client


@pytest.fixture
def chapter(db):
    from apps.courses.models import Chapter, Part

    part = Part.objects.create(slug="serving", title="Serving", order=1)
    return Chapter.objects.create(slug="decode-basics", part=part, order=1, title="Decode basics", summary="s.",
                                  body="## Decode\n\nOne token per step.\n", objectives=["Explain decode"])


def question_data(chapter, **overrides) -> dict:
    """The add/change form of a question as the admin posts it."""
    data = {
        "slug": "decode-bound", "status": "draft", "kind": "single_choice", "level": "core",
        "prompt": "What bounds **decode** at batch 1?", "answer": "Memory bandwidth.", "key": "",
        "options_text": CHOICE_LINES, "ordering_text": "", "categorize_text": "", "matching_text": "",
        "numeric_value": "", "numeric_unit": "", "numeric_tolerance": "", "numeric_mode": "relative",
        "chapters": [chapter.pk], "source_file": "",
    }
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not None}


def form_errors(response) -> dict:
    return response.context["adminform"].form.errors
