"""Who may use the admin: authors (staff, in `authors`) see and change content only; learners get the login page."""

import pytest
from django.contrib.auth.models import Group

from apps.core.permissions import AUTHORS_GROUP

from .admin_helpers import author, author_web, chapter  # noqa: F401

pytestmark = pytest.mark.django_db


def test_author_signs_in_to_the_admin_with_password(client, author):  # noqa: F811
    response = client.post("/admin/login/?next=/admin/", {"username": "author1", "password": "correct-horse-battery-9"})
    assert response.status_code == 302 and response["Location"] == "/admin/"
    index = client.get("/admin/")
    assert index.status_code == 200
    assert "Questions" in index.content.decode()


def test_author_sees_content_models_only(author_web):  # noqa: F811
    apps = {app["app_label"]: {model["object_name"] for model in app["models"]}
            for app in author_web.get("/admin/").context["app_list"]}
    assert apps["quiz"] >= {"Question", "NumberToMemorize", "DiagnosisScenario"}
    assert apps["courses"] >= {"Part", "Chapter"}
    assert apps["glossary"] == {"Term"} and apps["simulators"] == {"ModelConfig", "GPU"}
    assert "auth" not in apps and "flashcards" not in apps
    assert "ChapterProgress" not in apps["courses"]


def test_author_cannot_open_users_or_learner_data(author_web):  # noqa: F811
    assert author_web.get("/admin/auth/user/").status_code == 403
    assert author_web.get("/admin/flashcards/usercard/").status_code == 403
    assert author_web.get("/admin/quiz/question/add/").status_code == 200


def test_learner_cannot_sign_in_to_the_admin(client, make_user):
    make_user("plainlearner")
    response = client.post("/admin/login/?next=/admin/", {"username": "plainlearner", "password": "correct-horse-battery-9"})
    assert response.status_code == 200  # the form again, with an error
    assert "staff account" in response.content.decode()
    assert client.get("/admin/").status_code == 302


def test_member_of_authors_without_staff_flag_gets_no_admin(client, make_user):
    user = make_user("notstaff", author=True)
    # Joining the group made the user staff; an admin who then takes the flag away closes the admin to them.
    type(user).objects.filter(pk=user.pk).update(is_staff=False)
    client.force_login(user)
    assert client.get("/admin/quiz/question/").status_code == 302


def test_superuser_grants_and_revokes_the_author_role(client, make_user):
    admin_user = make_user("boss")
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    learner = make_user("future-author")
    client.force_login(admin_user)
    client.post("/admin/auth/user/", {"action": "make_authors", "_selected_action": [learner.pk]})
    learner.refresh_from_db()
    assert learner.is_staff and learner.groups.filter(name=AUTHORS_GROUP).exists()
    client.post("/admin/auth/user/", {"action": "revoke_authors", "_selected_action": [learner.pk]})
    learner.refresh_from_db()
    assert not learner.is_staff and not learner.groups.filter(name=AUTHORS_GROUP).exists()
    assert Group.objects.filter(name=AUTHORS_GROUP).exists()
