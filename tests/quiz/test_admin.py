import pytest
from django.test import Client

from apps.quiz.models import Question

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(db):
    from django.contrib.auth.models import User

    client = Client()
    client.force_login(User.objects.create_superuser("boss", "boss@example.com", "correct-horse-battery-9"))
    return client


def test_question_admin_lists_filters_and_previews(admin_client_, one_of_each):
    listing = admin_client_.get("/admin/quiz/question/?kind__exact=numeric&q=Prompt")
    assert listing.status_code == 200
    assert one_of_each["numeric"].slug in listing.content.decode()
    page = admin_client_.get(f"/admin/quiz/question/{one_of_each['ordering'].id}/change/").content.decode()
    assert "<p>Prompt text</p>" in page and "Correct order: Tokenize → Prefill → Decode → Detokenize" in page


def test_question_admin_rejects_a_bad_key_and_bumps_key_version(admin_client_, one_of_each):
    question = one_of_each["numeric"]
    form = {
        "slug": question.slug, "status": "published", "kind": "numeric", "level": "core", "prompt": "P", "answer": "A",
        "key": '{"numeric": {"value": 16, "unit": "furlongs", "tolerance": 0.01}}', "chapters": [c.id for c in question.chapters.all()],
    }
    bad = admin_client_.post(f"/admin/quiz/question/{question.id}/change/", form)
    assert bad.status_code == 200 and "numeric.unit: unknown unit" in bad.content.decode()
    form["key"] = '{"numeric": {"value": 8, "unit": "GiB", "tolerance": 0.01}}'
    assert admin_client_.post(f"/admin/quiz/question/{question.id}/change/", form).status_code == 302
    question.refresh_from_db()
    assert question.key["numeric"]["value"] == 8 and question.key_version == 2


def test_number_and_diagnosis_admin_pages(admin_client_):
    assert admin_client_.get("/admin/quiz/numbertomemorize/").status_code == 200
    assert admin_client_.get("/admin/quiz/diagnosisscenario/").status_code == 200
    assert Question.objects.count() == 0
