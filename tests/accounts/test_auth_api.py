import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
STRONG = "correct-horse-battery-9"


def register(client, **overrides):
    headers = {name: overrides.pop(name) for name in list(overrides) if name.startswith("HTTP_")}
    body = {"username": "ada", "password": STRONG, "email": "ada@example.com", **overrides}
    return client.post("/api/v1/auth/register/", body, format="json", **headers)


def test_register_from_the_browser_signs_in_and_me_works(api_client):
    response = register(api_client, HTTP_ORIGIN="http://testserver", HTTP_SEC_FETCH_SITE="same-origin")
    assert response.status_code == 201
    assert response.json()["username"] == "ada"
    assert response.cookies["sessionid"].value
    me = api_client.get("/api/v1/auth/me/")
    assert me.status_code == 200
    assert me.json()["is_author"] is False


def test_register_from_an_api_client_sets_no_cookie(api_client):
    response = register(api_client)
    assert response.status_code == 201
    assert "sessionid" not in response.cookies and "csrftoken" not in response.cookies
    assert api_client.get("/api/v1/auth/me/").status_code == 401


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"password": "123"}, "password"),
        ({"password": "password"}, "password"),
        ({"username": ""}, "username"),
        ({"username": "a b"}, "username"),
        ({"email": "not-an-email"}, "email"),
    ],
)
def test_register_bad_input_names_field(api_client, overrides, field):
    response = register(api_client, **overrides)
    assert response.status_code == 400
    assert field in response.json()["fields"]


def test_register_duplicate_username(api_client):
    register(api_client)
    response = register(APIClient(), username="ADA")
    assert response.status_code == 400
    assert "username" in response.json()["fields"]


def test_token_for_api_consumers(api_client, make_user):
    make_user("grace", STRONG)
    response = api_client.post("/api/v1/auth/token/", {"username": "grace", "password": STRONG}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/auth/me/").json()["username"] == "grace"


@pytest.mark.parametrize(
    ("body", "field"),
    [({"password": STRONG}, "username"), ({"username": "grace"}, "password"), ({"username": "grace", "password": "wrong"}, "password")],
)
def test_token_and_login_bad_input(api_client, make_user, body, field):
    make_user("grace", STRONG)
    for url in ("/api/v1/auth/token/", "/api/v1/auth/login/"):
        response = api_client.post(url, body, format="json")
        assert response.status_code == 400
        assert field in response.json()["fields"]


def test_login_is_throttled(api_client, make_user):
    make_user("grace", STRONG)
    statuses = [
        api_client.post("/api/v1/auth/login/", {"username": "grace", "password": "nope"}, format="json").status_code
        for _ in range(12)
    ]
    assert statuses[0] == 400
    assert statuses[-1] == 429


def test_session_login_requires_csrf(make_user):
    make_user("grace", STRONG)
    client = APIClient(enforce_csrf_checks=True)
    body = {"username": "grace", "password": STRONG}
    # Login itself is CSRF-protected (no login CSRF).
    assert client.post("/api/v1/auth/login/", body, format="json").status_code == 403
    assert client.get("/api/v1/auth/csrf/").status_code == 204
    csrf = client.cookies["csrftoken"].value
    assert client.post("/api/v1/auth/login/", body, format="json", HTTP_X_CSRFTOKEN=csrf).status_code == 200
    # Logged in now; a state-changing call without the CSRF header is refused.
    assert client.post("/api/v1/auth/logout/").status_code == 403
    csrf = client.cookies["csrftoken"].value
    assert client.post("/api/v1/auth/logout/", HTTP_X_CSRFTOKEN=csrf).status_code == 204


def test_me_requires_authentication(api_client):
    response = api_client.get("/api/v1/auth/me/")
    assert response.status_code in (401, 403)
    assert response.json()["error"] == "not_authenticated"


def test_reading_settings_round_trip_and_validation(learner_client):
    response = learner_client.patch("/api/v1/auth/me/reading-settings/", {"theme": "dark", "text_size": "large"}, format="json")
    assert response.status_code == 200
    assert response.json()["theme"] == "dark"
    bad = learner_client.patch("/api/v1/auth/me/reading-settings/", {"theme": "purple"}, format="json")
    assert bad.status_code == 400
    assert "theme" in bad.json()["fields"]
