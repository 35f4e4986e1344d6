import pytest

pytestmark = pytest.mark.django_db


def test_authors_group_can_change_content_only():
    from django.contrib.auth.models import Group

    permissions = set(Group.objects.get(name="authors").permissions.values_list("content_type__app_label", "codename"))
    for app_label, model in [("courses", "chapter"), ("glossary", "term"), ("quiz", "question"), ("simulators", "gpu")]:
        for action in ("add", "change", "delete", "view"):
            assert (app_label, f"{action}_{model}") in permissions
    apps_granted = {app_label for app_label, _ in permissions}
    assert apps_granted <= {"courses", "glossary", "quiz", "simulators"}
    assert ("auth", "change_user") not in permissions
    assert ("flashcards", "change_usercard") not in permissions


def test_author_flag_in_me(author_client, learner_client):
    assert author_client.get("/api/v1/auth/me/").json()["is_author"] is True
    assert learner_client.get("/api/v1/auth/me/").json()["is_author"] is False


def test_joining_and_leaving_authors_sets_staff(make_user):
    from django.contrib.auth.models import Group

    user = make_user()
    authors = Group.objects.get(name="authors")
    user.groups.add(authors)
    user.refresh_from_db()
    assert user.is_staff is True
    user.groups.remove(authors)
    user.refresh_from_db()
    assert user.is_staff is False
