"""Redis (the Celery broker) down: reading, practice, reviews and synchronous simulators keep working;
job endpoints (sweep create, flashcards optimize) answer 503 with a clear message."""

import uuid

import pytest

from tests.faults.services import PrivateRedis

pytestmark = [pytest.mark.slow, pytest.mark.django_db]
SWEEP = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "grid": {"max_num_seqs": [8, 16]},
         "workload": {"num_requests": 20, "arrival_rate_per_s": 10, "prompt_tokens": 100, "output_tokens": 10}}


@pytest.fixture
def broker(settings):
    redis = PrivateRedis()
    redis.start()
    settings.CELERY_BROKER_URL = redis.url
    settings.CELERY_TASK_ALWAYS_EAGER = False
    yield redis
    redis.stop()


@pytest.fixture
def learner(make_user, content):
    from rest_framework.test import APIClient

    from tests.simulators.api_helpers import load_real_catalog

    load_real_catalog()
    client = APIClient()
    client.force_authenticate(make_user("redis-learner"))
    assert client.post(f"/api/v1/flashcards/decks/{content.deck}/add/").status_code == 200
    return client


def test_with_redis_down_learning_keeps_working_and_jobs_answer_503(broker, learner, content, monkeypatch):
    from apps.flashcards import optimization

    monkeypatch.setattr(optimization, "MIN_REVIEWS", 1)  # the one review below is enough to ask for a job
    assert learner.post("/api/v1/simulators/sweeps/", SWEEP, format="json").status_code == 202  # broker up: queued
    broker.stop()

    assert learner.get("/api/v1/chapters/").status_code == 200
    assert learner.get(f"/api/v1/chapters/{content.chapter.slug}/").status_code == 200
    session = learner.post("/api/v1/practice/sessions/", {"size": 1}, format="json")
    assert session.status_code == 201
    answer = {"question": content.question.id, "self_rating": "good"}
    assert learner.post(f"/api/v1/practice/sessions/{session.json()['id']}/answers/", answer,
                        format="json").status_code == 201
    due = learner.get("/api/v1/flashcards/due/").json()
    card_id = due["cards"][0]["card_id"] if "cards" in due else due["queue"][0]["card_id"]
    review = {"rating": 3, "review_id": str(uuid.uuid4())}
    assert learner.post(f"/api/v1/flashcards/{card_id}/review/", review, format="json").status_code == 201
    kv = learner.post("/api/v1/simulators/kv-cache/", {"model": "llama-3.1-8b", "context_tokens": 4096}, format="json")
    assert kv.status_code == 200
    engine = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "workload": {"num_requests": 20}}
    assert learner.post("/api/v1/simulators/engine/", engine, format="json").status_code == 200

    for url, body in (("/api/v1/simulators/sweeps/", SWEEP), ("/api/v1/flashcards/optimize/", None)):
        response = learner.post(url, body, format="json")
        assert response.status_code == 503, (url, response.status_code, response.content[:200])
        error = response.json()
        assert error["error"] == "service_unavailable"
        assert "queue" in error["detail"].lower() and "unavailable" in error["detail"].lower()

    health = learner.get("/api/v1/health/")
    assert health.status_code == 200 and health.json()["broker"] == "unavailable"
