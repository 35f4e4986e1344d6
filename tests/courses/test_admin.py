import pytest

from .factories import make_chapter, make_part

pytestmark = pytest.mark.django_db


def test_chapter_admin_lists_filters_and_previews_rendered_body(admin_client):
    chapter = make_chapter("intro", make_part("basics", 1), 1, body="## Hello\n\nSome **bold** text.")
    chapter.body_html = "<h2>Hello</h2><p>Some <strong>bold</strong> text.</p>"
    chapter.save()
    listing = admin_client.get("/admin/courses/chapter/?level__exact=core&q=intro")
    assert listing.status_code == 200 and b"Intro" in listing.content
    page = admin_client.get(f"/admin/courses/chapter/{chapter.pk}/change/")
    assert page.status_code == 200
    assert b"<strong>bold</strong>" in page.content


def test_glossary_and_part_admin_pages_load(admin_client):
    assert admin_client.get("/admin/glossary/term/?status__exact=published&q=kv").status_code == 200
    assert admin_client.get("/admin/courses/part/").status_code == 200
