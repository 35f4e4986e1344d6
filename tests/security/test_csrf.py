"""Session-authenticated state changes need the CSRF token, for a representative endpoint of each app."""

import uuid

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-battery-9"


@pytest.fixture
def session_client(make_user, content):
    """A browser-like client: signed in by session cookie, CSRF enforced, token fetched from /auth/csrf/."""
    from django.utils import timezone

    from apps.flashcards.services import deck_add

    user = make_user("browser", password=PASSWORD)
    deck_add(user=user, slug=content.deck, now=timezone.now())
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username="browser", password=PASSWORD)
    assert client.get("/api/v1/auth/csrf/").status_code == 204
    client.csrf_token = client.cookies["csrftoken"].value
    client.user = user
    return client


def practice_session(user, content):
    from apps.quiz.models import PracticeSession

    return PracticeSession.objects.create(user=user, mode="practice", question_ids=[content.question.id], filters={})


def card_id(user):
    from apps.flashcards.models import UserCard

    return UserCard.objects.filter(user=user).values_list("card_id", flat=True).first()


def requests_for(client, content):
    session = practice_session(client.user, content)
    sweep = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "grid": {"max_num_seqs": [8]},
             "workload": {"num_requests": 20, "arrival_rate_per_s": 10, "prompt_tokens": 100, "output_tokens": 10}}
    return [
        ("put", "/api/v1/chapters/sec-chapter/progress/", {"status": "understood"}),
        ("post", f"/api/v1/practice/sessions/{session.id}/answers/", {"question": content.question.id,
                                                                     "self_rating": "good"}),
        ("post", f"/api/v1/flashcards/{card_id(client.user)}/review/", {"rating": 3, "review_id": str(uuid.uuid4())}),
        ("post", "/api/v1/simulators/sweeps/", sweep),
        ("patch", "/api/v1/srs/settings/", {"desired_retention": 0.85}),
        ("patch", "/api/v1/auth/me/reading-settings/", {}),
    ]


def test_state_changes_without_the_csrf_token_are_refused(session_client, content):
    from apps.courses.models import ChapterProgress
    from apps.flashcards.models import ReviewLog
    from apps.quiz.models import PracticeAnswer
    from apps.simulators.models import SweepJob

    for method, url, body in requests_for(session_client, content):
        response = getattr(session_client, method)(url, body, format="json")
        assert response.status_code == 403, (url, response.status_code)
        assert "CSRF" in response.json()["detail"], url
    assert not ChapterProgress.objects.exists()
    assert not PracticeAnswer.objects.exists()
    assert not ReviewLog.objects.exists()
    assert not SweepJob.objects.exists()


def test_a_wrong_csrf_token_is_refused_too(session_client, content):
    response = session_client.put("/api/v1/chapters/sec-chapter/progress/", {"status": "reading"}, format="json",
                                  HTTP_X_CSRFTOKEN="x" * 64)
    assert response.status_code == 403


def test_the_same_requests_pass_with_the_token(session_client, content, settings):
    from apps.core.content import FIXTURES_DIR, LoadContext
    from apps.simulators.content import load_catalog

    load_catalog(LoadContext(root=FIXTURES_DIR))  # the sweep names a catalog model and GPU
    settings.CELERY_TASK_ALWAYS_EAGER = True  # no broker round trip for the sweep; it is only queued on commit
    for method, url, body in requests_for(session_client, content):
        response = getattr(session_client, method)(url, body, format="json", HTTP_X_CSRFTOKEN=session_client.csrf_token)
        assert response.status_code < 300, (url, response.status_code, response.content[:300])
