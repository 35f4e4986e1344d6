"""API clients that send no cookies register and get a token with no CSRF dance; browsers keep CSRF protection.

A forged request rides on a victim's browser, which sends our cookies if it has any and always sends `Origin` /
`Sec-Fetch-Site` on a cross-site POST; a request with none of those has nothing to forge.
"""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
STRONG = "correct-horse-battery-9"
REGISTER = "/api/v1/auth/register/"


def strict_client() -> APIClient:
    """A client that enforces CSRF like a real deployment and holds no cookies yet."""
    return APIClient(enforce_csrf_checks=True)


def body(username="ada", **extra):
    return {"username": username, "password": STRONG, **extra}


def test_register_without_cookies_needs_no_csrf_token():
    response = strict_client().post(REGISTER, body(), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "ada"
    assert "token" not in response.json()


def test_a_cookie_keeping_client_stays_anonymous_after_registering(live_server):
    """A real HTTP client with a cookie jar (requests.Session): registration sets no cookie, so its next anonymous
    POST needs no CSRF token (it answered 403 when registration signed it in with a session)."""
    import requests

    session = requests.Session()
    registered = session.post(f"{live_server.url}{REGISTER}", json=body(issue_token=True), timeout=30)
    assert registered.status_code == 201, registered.text
    assert not session.cookies, dict(session.cookies)
    again = session.post(f"{live_server.url}/api/v1/practice/sessions/", json={"mode": "practice"}, timeout=30)
    assert again.status_code != 403, again.text
    token = registered.json()["token"]
    me = session.get(f"{live_server.url}/api/v1/auth/me/", headers={"Authorization": f"Token {token}"}, timeout=30)
    assert me.json()["username"] == "ada"


def test_register_can_answer_with_a_token_that_authenticates():
    response = strict_client().post(REGISTER, body(issue_token=True), format="json")
    assert response.status_code == 201, response.content
    token = response.json()["token"]
    client = APIClient()  # a fresh client: no session cookie, only the token
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/auth/me/").json()["username"] == "ada"
    # The token endpoint hands out the same key.
    issued = strict_client().post("/api/v1/auth/token/", {"username": "ada", "password": STRONG}, format="json")
    assert issued.status_code == 200
    assert issued.json()["token"] == token


def test_token_issue_without_cookies_needs_no_csrf_token(make_user):
    make_user("grace", STRONG)
    response = strict_client().post("/api/v1/auth/token/", {"username": "grace", "password": STRONG}, format="json")
    assert response.status_code == 200
    assert response.json()["token"]


def test_register_with_our_cookies_needs_the_csrf_token():
    from django.contrib.auth import get_user_model

    client = strict_client()
    assert client.get("/api/v1/auth/csrf/").status_code == 204
    refused = client.post(REGISTER, body(), format="json")
    assert refused.status_code == 403
    assert refused.json()["error"] == "permission_denied"
    assert "CSRF" in refused.json()["detail"]
    assert not get_user_model().objects.filter(username="ada").exists()
    csrf = client.cookies["csrftoken"].value
    assert client.post(REGISTER, body(), format="json", HTTP_X_CSRFTOKEN=csrf).status_code == 201


def test_register_with_a_session_cookie_needs_the_csrf_token(make_user):
    make_user("grace", STRONG)
    client = strict_client()
    client.cookies["sessionid"] = "anything"
    assert client.post(REGISTER, body(), format="json").status_code == 403


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "https://evil.example"},
        {"HTTP_SEC_FETCH_SITE": "cross-site"},
        {"HTTP_ORIGIN": "http://testserver", "HTTP_SEC_FETCH_SITE": "same-origin"},
    ],
)
def test_a_browser_with_no_cookies_still_needs_the_csrf_token(headers):
    """Login CSRF through registration: a cookie-less browser is still a browser (it sends Origin/Sec-Fetch-*)."""
    from django.contrib.auth import get_user_model

    response = strict_client().post(REGISTER, body(), format="json", **headers)
    assert response.status_code == 403
    assert not get_user_model().objects.exists()


def test_browser_login_keeps_csrf_protection_even_without_cookies(make_user):
    make_user("grace", STRONG)
    response = strict_client().post("/api/v1/auth/login/", {"username": "grace", "password": STRONG}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


def test_token_authenticated_writes_need_no_csrf_token(make_user, settings):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=make_user("grace", STRONG)).key
    client = strict_client()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.patch("/api/v1/auth/me/reading-settings/", {"theme": "dark"}, format="json")
    assert response.status_code == 200


def test_the_schema_says_who_needs_what():
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for path, method in [("register/", "post"), ("token/", "post"), ("csrf/", "get"), ("login/", "post")]:
        assert paths[f"/api/v1/auth/{path}"][method]["security"] == [], path
    register = paths["/api/v1/auth/register/"]["post"]
    assert "401" not in register["responses"]
    assert register["responses"]["403"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorBody"
    }
    assert paths["/api/v1/auth/me/"]["get"]["security"] == [{"tokenAuth": []}, {"cookieAuth": []}]
