"""Chapters, terms and the catalog in the admin: model validation on the form, previews, filters, bulk status."""

import json

import pytest

from apps.courses.models import Chapter, Part
from apps.glossary.models import Term
from apps.simulators.models import GPU

from .admin_helpers import author, author_web, chapter, form_errors  # noqa: F401

pytestmark = pytest.mark.django_db


def test_chapter_form_shows_model_validation_on_the_field(author_web, chapter):  # noqa: F811
    data = {
        "slug": chapter.slug, "status": "published", "part": chapter.part_id, "order": 1, "title": "Decode basics",
        "summary": "s.", "minutes": 10, "level": "core", "objectives": json.dumps(["Explain decode"]),
        "key_numbers": json.dumps([]), "body": "## Decode\n", "simulators": json.dumps(["warp-drive"]),
        "source_file": "",
    }
    response = author_web.post(f"/admin/courses/chapter/{chapter.pk}/change/", data)
    assert response.status_code == 200
    assert "unknown simulator" in form_errors(response)["simulators"][0]
    chapter.refresh_from_db()
    assert chapter.simulators == []


def test_chapter_change_page_has_rendered_preview_and_view_on_site(author_web, chapter):  # noqa: F811
    Chapter.objects.filter(pk=chapter.pk).update(body_html="<h2>Decode</h2><p>One token per step.</p>")
    page = author_web.get(f"/admin/courses/chapter/{chapter.pk}/change/").content.decode()
    assert '<div class="chapter-preview" style="max-width:44rem"><h2>Decode</h2>' in page
    assert f"/admin/r/{_content_type('courses', 'chapter')}/{chapter.pk}/" in page


def _content_type(app_label: str, model: str) -> int:
    from django.contrib.contenttypes.models import ContentType

    return ContentType.objects.get(app_label=app_label, model=model).pk


def test_term_preview_and_bulk_unpublish_with_part_filter(author_web, chapter):  # noqa: F811
    term = Term.objects.create(slug="itl", term="Inter-token latency", definition="Time between tokens.",
                               explanation="Measured in **ms**.")
    term.chapters.set([chapter])
    other_part = Part.objects.create(slug="scaling", title="Scaling", order=2)
    elsewhere = Chapter.objects.create(slug="tp", part=other_part, order=1, title="TP", summary="s.", body="b")
    Term.objects.create(slug="allreduce", term="All-reduce", definition="Sum across GPUs.").chapters.set([elsewhere])
    page = author_web.get(f"/admin/glossary/term/{term.pk}/change/").content.decode()
    assert "Measured in <strong>ms</strong>." in page
    listing = author_web.get(f"/admin/glossary/term/?chapters__part__id__exact={chapter.part_id}")
    assert [t.slug for t in listing.context["cl"].result_list] == ["itl"]
    author_web.post("/admin/glossary/term/", {"action": "unpublish", "_selected_action": [term.pk]})
    term.refresh_from_db()
    assert term.status == "draft"


def test_gpu_list_filters_by_vendor_and_status(author_web):  # noqa: F811
    specs = {"memory_bytes": 8e10, "hbm_bandwidth_bytes_per_s": 3.35e12, "bf16_dense_flops": 9.89e14,
             "int8_dense_ops": 1.98e15, "interconnect_bandwidth_bytes_per_s": 9e11, "price_per_hour_usd": 2.0,
             "source": "datasheet"}
    GPU.objects.create(slug="h100", name="H100", vendor="NVIDIA", **specs)
    GPU.objects.create(slug="mi300x", name="MI300X", vendor="AMD", status="draft", **specs)
    assert author_web.get("/admin/simulators/gpu/?vendor=AMD").context["cl"].result_count == 1
    assert author_web.get("/admin/simulators/gpu/?status__exact=draft&q=mi300").context["cl"].result_count == 1
