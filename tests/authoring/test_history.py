"""Every content change is recorded with its author, and the admin reverts to an earlier version."""

import json

import pytest

from apps.courses.models import Chapter

from .admin_helpers import author, author_web, chapter  # noqa: F401

pytestmark = pytest.mark.django_db


def chapter_form(part, **overrides) -> dict:
    data = {
        "slug": "batching", "status": "published", "part": part.pk, "order": 2, "title": "Batching",
        "summary": "Why batches help.", "minutes": 12, "level": "core",
        "objectives": json.dumps(["Explain continuous batching"]), "key_numbers": json.dumps([{"label": "Batch", "value": "64"}]),
        "body": "## Batching\n\nFirst version.\n", "simulators": json.dumps(["step-time"]), "source_file": "",
    }
    data.update(overrides)
    return data


def form_data(form) -> dict:
    """What the browser would post back from a rendered admin form (its current values)."""
    data = {}
    for field in form:
        value = field.value()
        if value is not None:
            data[field.name] = value
    return data


def test_change_is_recorded_with_the_user_and_revert_brings_the_body_back(author_web, author, chapter):  # noqa: F811
    part = chapter.part
    assert author_web.post("/admin/courses/chapter/add/", chapter_form(part)).status_code == 302
    batching = Chapter.objects.get(slug="batching")
    url = f"/admin/courses/chapter/{batching.pk}/change/"
    edited = chapter_form(part, body="## Batching\n\nSecond version, rewritten.\n")
    assert author_web.post(url, edited).status_code == 302
    batching.refresh_from_db()
    assert "Second version" in batching.body and "Second version" in batching.body_html

    records = list(batching.history.order_by("history_date"))
    assert [(r.history_type, r.history_user) for r in records] == [("+", author), ("~", author)]
    history_page = author_web.get(f"/admin/courses/chapter/{batching.pk}/history/").content.decode()
    assert "author1" in history_page

    revert_url = f"/admin/courses/chapter/{batching.pk}/history/{records[0].history_id}/"
    revert_form = author_web.get(revert_url)
    assert revert_form.status_code == 200
    response = author_web.post(revert_url, form_data(revert_form.context["adminform"].form))
    assert response.status_code == 302
    batching.refresh_from_db()
    assert batching.body == records[0].body == "## Batching\n\nFirst version.\n"
    assert "First version" in batching.body_html
    assert batching.history.count() == 3 and batching.history.first().history_user == author


def test_learner_edits_are_impossible_so_history_only_has_authors(client, make_user, chapter):  # noqa: F811
    client.force_login(make_user("curious"))
    response = client.post(f"/admin/courses/chapter/{chapter.pk}/change/", {"title": "Vandalized"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    chapter.refresh_from_db()
    assert chapter.title == "Decode basics" and chapter.history.count() == 1
