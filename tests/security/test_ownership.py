"""Every user-owned resource: a stranger using the owner's ids gets 404 (never 403, never the data)."""

import uuid

import pytest
from django.utils import timezone

from tests.flashcards.conftest import exported_json

pytestmark = pytest.mark.django_db


def not_found(response) -> None:
    assert response.status_code == 404, (response.status_code, response.content[:300])
    assert response.json()["error"] == "not_found"


def test_chapter_progress_is_private(owner, stranger, content):
    assert owner.put("/api/v1/chapters/sec-chapter/progress/", {"status": "understood"}, format="json").status_code == 200
    assert owner.get("/api/v1/progress/").json()["chapters"] == {"sec-chapter": "understood"}
    theirs = stranger.get("/api/v1/progress/").json()
    assert theirs["chapters"] == {} and theirs["understood"] == 0
    assert stranger.get("/api/v1/chapters/sec-chapter/").json()["status"] is None
    merged = stranger.post("/api/v1/progress/merge/", {"chapters": {"sec-chapter": "reading"}}, format="json")
    assert merged.status_code == 200
    assert owner.get("/api/v1/progress/").json()["chapters"] == {"sec-chapter": "understood"}


def test_practice_session_answers_and_summary_are_private(owner, stranger, api_client, content):
    created = owner.post("/api/v1/practice/sessions/", {"size": 1}, format="json")
    assert created.status_code == 201, created.json()
    sid = created.json()["id"]
    answer = {"question": content.question.id, "self_rating": "good"}
    for client in (stranger, api_client):
        not_found(client.get(f"/api/v1/practice/sessions/{sid}/"))
        not_found(client.post(f"/api/v1/practice/sessions/{sid}/answers/", answer, format="json"))
        not_found(client.get(f"/api/v1/practice/sessions/{sid}/summary/"))
    # a made-up anonymous token does not open it either
    not_found(api_client.get(f"/api/v1/practice/sessions/{sid}/", HTTP_X_PRACTICE_TOKEN="forged"))
    assert stranger.get("/api/v1/practice/sessions/").json()["count"] == 0
    assert owner.post(f"/api/v1/practice/sessions/{sid}/answers/", answer, format="json").status_code == 201
    assert owner.get(f"/api/v1/practice/sessions/{sid}/summary/").status_code == 200


def test_anonymous_practice_session_opens_only_with_its_own_token(api_client, stranger, content):
    created = api_client.post("/api/v1/practice/sessions/", {"size": 1}, format="json").json()
    sid, token = created["id"], created["session_token"]
    assert api_client.get(f"/api/v1/practice/sessions/{sid}/", HTTP_X_PRACTICE_TOKEN=token).status_code == 200
    not_found(stranger.get(f"/api/v1/practice/sessions/{sid}/"))
    other = api_client.post("/api/v1/practice/sessions/", {"size": 1}, format="json").json()
    not_found(api_client.get(f"/api/v1/practice/sessions/{sid}/", HTTP_X_PRACTICE_TOKEN=other["session_token"]))


@pytest.fixture
def owned_card(owner, content):
    from apps.flashcards.models import UserCard

    assert owner.post(f"/api/v1/flashcards/decks/{content.deck}/add/").status_code == 200
    return UserCard.objects.get(user=owner.user).card_id


@pytest.mark.parametrize("action", ["review", "undo", "suspend", "unsuspend", "bury"])
def test_cards_outside_your_collection_are_404(owner, stranger, owned_card, action):
    from apps.flashcards.models import ReviewLog, UserCard

    body = {"rating": 3, "review_id": str(uuid.uuid4())} if action == "review" else {}
    not_found(stranger.post(f"/api/v1/flashcards/{owned_card}/{action}/", body, format="json"))
    not_found(stranger.post("/api/v1/flashcards/999999/review/", {"rating": 3, "review_id": str(uuid.uuid4())},
                            format="json"))
    mine = UserCard.objects.get(user=owner.user)
    assert (mine.reps, mine.suspended, mine.buried_until) == (0, False, None)
    assert not ReviewLog.objects.exists()
    assert not UserCard.objects.filter(user=stranger.user).exists()


def test_a_review_id_of_another_user_does_not_replay_their_answer(owner, stranger, owned_card, content):
    review_id = str(uuid.uuid4())
    first = owner.post(f"/api/v1/flashcards/{owned_card}/review/", {"rating": 4, "review_id": review_id}, format="json")
    assert first.status_code == 201
    assert stranger.post(f"/api/v1/flashcards/decks/{content.deck}/add/").status_code == 200
    theirs = stranger.post(f"/api/v1/flashcards/{owned_card}/review/", {"rating": 1, "review_id": review_id},
                           format="json")
    assert theirs.status_code in (201, 409), theirs.json()  # their own review or a conflict, never owner's replay
    assert theirs.json() != first.json()


def test_due_queue_and_export_hold_only_your_cards(owner, stranger, owned_card):
    assert owner.get("/api/v1/flashcards/due/").json()
    assert exported_json(stranger)["cards"] == []
    assert len(exported_json(owner)["cards"]) == 1
    cards_csv = stranger.get("/api/v1/flashcards/export/?format=csv")
    assert cards_csv.status_code == 200
    assert all(line.startswith("#") for line in cards_csv.content.decode().splitlines())  # header lines only
    stats = stranger.get("/api/v1/flashcards/stats/").json()
    assert stats != owner.get("/api/v1/flashcards/stats/").json()


def test_srs_settings_are_per_user(owner, stranger):
    assert owner.patch("/api/v1/srs/settings/", {"desired_retention": 0.8}, format="json").status_code == 200
    assert stranger.get("/api/v1/srs/settings/").json()["desired_retention"] != 0.8
    assert stranger.patch("/api/v1/srs/settings/", {"desired_retention": 0.95}, format="json").status_code == 200
    assert owner.get("/api/v1/srs/settings/").json()["desired_retention"] == 0.8


def test_optimization_jobs_are_private(owner, stranger):
    from apps.flashcards.models import OptimizationJob

    job = OptimizationJob.objects.create(user=owner.user, status="succeeded", parameters=[0.4] * 21,
                                         finished_at=timezone.now())
    not_found(stranger.get(f"/api/v1/flashcards/optimize/{job.id}/"))
    not_found(stranger.post(f"/api/v1/flashcards/optimize/{job.id}/apply/"))
    not_found(stranger.post(f"/api/v1/flashcards/optimize/{job.id}/discard/"))
    assert owner.get(f"/api/v1/flashcards/optimize/{job.id}/").status_code == 200
    job.refresh_from_db()
    assert job.status == "succeeded"


def test_sweeps_are_private(owner, stranger):
    from apps.simulators.models import SweepJob

    job = SweepJob.objects.create(user=owner.user, request={"grid": {}}, total_points=4)
    not_found(stranger.get(f"/api/v1/simulators/sweeps/{job.id}/"))
    not_found(stranger.post(f"/api/v1/simulators/sweeps/{job.id}/cancel/"))
    assert stranger.get("/api/v1/simulators/sweeps/").json()["count"] == 0
    job.refresh_from_db()
    assert job.status == "queued"
    assert owner.get(f"/api/v1/simulators/sweeps/{job.id}/").status_code == 200
    assert owner.get("/api/v1/simulators/sweeps/").json()["count"] == 1
