"""Login attempts and sweep creation are rate limited (THROTTLE_LOGIN 10/minute, THROTTLE_SWEEPS 30/hour)."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_eleventh_login_attempt_in_a_minute_is_throttled(api_client, make_user):
    make_user("victim")
    wrong = {"username": "victim", "password": "not-the-password-1"}
    statuses = [api_client.post("/api/v1/auth/login/", wrong, format="json").status_code for _ in range(10)]
    assert statuses == [400] * 10
    response = api_client.post("/api/v1/auth/login/", {**wrong, "password": "correct-horse-battery-9"}, format="json")
    assert response.status_code == 429
    assert response.json()["error"] == "throttled"
    assert int(response["Retry-After"]) > 0


def test_token_and_register_share_the_login_budget(api_client, make_user):
    make_user("victim")
    for _ in range(10):
        api_client.post("/api/v1/auth/token/", {"username": "victim", "password": "nope-nope-1"}, format="json")
    assert api_client.post("/api/v1/auth/token/", {"username": "victim", "password": "x"}, format="json").status_code == 429
    body = {"username": "newcomer", "password": "correct-horse-battery-9"}
    assert api_client.post("/api/v1/auth/register/", body, format="json").status_code == 429


def test_sweep_creation_is_throttled_after_thirty_an_hour(learner_client):
    # Invalid bodies still count: the throttle runs before validation, so a flood of junk is limited too.
    statuses = [learner_client.post("/api/v1/simulators/sweeps/", {}, format="json").status_code for _ in range(30)]
    assert set(statuses) == {400}
    response = learner_client.post("/api/v1/simulators/sweeps/", {}, format="json")
    assert response.status_code == 429
    assert response.json()["error"] == "throttled"
    assert learner_client.get("/api/v1/simulators/sweeps/").status_code == 200  # listing is not limited
