"""``is_author`` costs no query of its own on token requests, and is never stale: revoking authorship (the group or
the superuser flag) takes effect on the very next request, by token or by session."""

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from apps.core.models import Status
from apps.core.permissions import AUTHORS_GROUP
from tests.courses.factories import make_chapter, make_part

pytestmark = pytest.mark.django_db
DRAFT = "/api/v1/chapters/draft-plans/"


@pytest.fixture
def draft():
    make_chapter("draft-plans", make_part("engine", 1), 1, status=Status.DRAFT)


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.mark.parametrize("author", [True, False])
def test_a_cached_read_by_token_costs_only_the_token_query(make_user, author):
    client = token_client(make_user(author=author))
    client.get("/api/v1/glossary/")  # fills the cached body
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/v1/glossary/").status_code == 200
    assert len(queries) == 1, [q["sql"] for q in queries]
    assert "authtoken_token" in queries[0]["sql"]


def test_revoking_the_group_takes_effect_on_the_next_token_request(make_user, draft):
    user = make_user(author=True)
    client = token_client(user)
    assert client.get(DRAFT).status_code == 200
    assert client.get("/api/v1/auth/me/").json()["is_author"] is True
    user.groups.remove(Group.objects.get(name=AUTHORS_GROUP))
    assert client.get(DRAFT).status_code == 404
    assert client.get("/api/v1/auth/me/").json()["is_author"] is False
    user.groups.add(Group.objects.get(name=AUTHORS_GROUP))
    assert client.get(DRAFT).status_code == 200


def test_revoking_superuser_takes_effect_on_the_next_token_request(make_user, draft):
    user = make_user()
    user.is_superuser = True
    user.save()
    client = token_client(user)
    assert client.get(DRAFT).status_code == 200
    user.is_superuser = False
    user.save()
    assert client.get(DRAFT).status_code == 404


def test_revoking_the_group_takes_effect_on_the_next_session_request(make_user, draft):
    user = make_user("sessionauthor", author=True)
    client = APIClient()
    assert client.login(username="sessionauthor", password="correct-horse-battery-9")
    assert client.get(DRAFT).status_code == 200
    Group.objects.get(name=AUTHORS_GROUP).user_set.remove(user)
    assert client.get(DRAFT).status_code == 404


def test_a_learner_token_never_sees_drafts(make_user, draft):
    assert token_client(make_user()).get(DRAFT).status_code == 404


def test_parts_checks_authorship_once_for_a_session_user(make_user, draft, django_assert_num_queries):
    """Session users have no membership loaded with them: each check is a query, so parts makes one, not two."""
    make_user("sessionreader")
    client = APIClient()
    assert client.login(username="sessionreader", password="correct-horse-battery-9")
    client.get("/api/v1/parts/")
    # session, user, the author check, the parts with their counts, the reader's understood chapters
    with django_assert_num_queries(5):
        assert client.get("/api/v1/parts/").json()[0]["chapter_count"] == 0
