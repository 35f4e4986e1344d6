"""Card ids in paths past the database's bigint range answer 404 with the JSON error body, never a 500.

On SQLite (the embedded default) such an id used to reach the query and fail with OverflowError; PostgreSQL
compares it as numeric. The path converter now refuses it on every database."""

import pytest

ACTIONS = ("review", "undo", "suspend", "unsuspend", "bury")
HUGE = ("9223372036854775808", "18446744073709551616", "99999999999999999999999999")


@pytest.mark.parametrize("card_id", HUGE)
@pytest.mark.parametrize("action", ACTIONS)
def test_card_id_past_bigint_is_404_json(learner_client, action, card_id):
    body = {"rating": 3, "review_id": "5b0c5c1e-7a9c-4a39-9d53-0d4d3a0e7f11"} if action == "review" else None
    response = learner_client.post(f"/api/v1/flashcards/{card_id}/{action}/", body, format="json")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"] == "not_found"


@pytest.mark.parametrize("action", ACTIONS)
def test_largest_bigint_is_an_ordinary_missing_card(learner_client, action):
    body = {"rating": 3, "review_id": "0f3c1b8e-6c1e-4f8e-9f0a-2b1d3c4e5f60"} if action == "review" else None
    response = learner_client.post(f"/api/v1/flashcards/9223372036854775807/{action}/", body, format="json")
    assert response.status_code == 404 and response.json()["error"] == "not_found"
