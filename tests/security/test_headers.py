"""Response headers and cookies: no CORS, HttpOnly session, Secure cookies in production, a strict CSP."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db
EVIL = "https://evil.example"


@pytest.mark.parametrize("path", ["/api/v1/chapters/", "/api/v1/health/", "/api/v1/auth/csrf/", "/"])
def test_cors_is_closed_for_other_origins(client, path):
    response = client.get(path, HTTP_ORIGIN=EVIL)
    assert "Access-Control-Allow-Origin" not in response
    assert "Access-Control-Allow-Credentials" not in response


def test_cors_preflight_grants_nothing(client):
    response = client.options("/api/v1/simulators/kv-cache/", HTTP_ORIGIN=EVIL,
                              HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
                              HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type")
    assert "Access-Control-Allow-Origin" not in response
    assert "Access-Control-Allow-Methods" not in response


def test_session_cookie_is_httponly_and_samesite(api_client, make_user):
    make_user("cookie", password="correct-horse-battery-9")
    response = api_client.post("/api/v1/auth/login/", {"username": "cookie", "password": "correct-horse-battery-9"},
                               format="json")
    assert response.status_code == 200
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"


def production_settings(**env) -> dict[str, str]:
    code = ("from django.conf import settings as s\n"
            "for n in ['DEBUG','SESSION_COOKIE_SECURE','CSRF_COOKIE_SECURE','SESSION_COOKIE_HTTPONLY',"
            "'SECURE_HSTS_SECONDS','SECURE_SSL_REDIRECT','SECURE_CONTENT_TYPE_NOSNIFF','X_FRAME_OPTIONS']:\n"
            "    print('SETTING', n, getattr(s, n))")
    full_env = {**os.environ, "DEBUG": "false", "SECRET_KEY": "s3cr3t-" * 8, **env}
    for name in ("SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS"):
        if name not in env:
            full_env.pop(name, None)
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=settings.BASE_DIR, env=full_env,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return dict(line.split(" ", 2)[1:] for line in out.splitlines() if line.startswith("SETTING "))


def test_production_settings_make_cookies_secure_and_turn_on_hsts():
    values = production_settings()
    assert values["DEBUG"] == "False"
    assert values["SESSION_COOKIE_SECURE"] == "True"
    assert values["CSRF_COOKIE_SECURE"] == "True"
    assert values["SESSION_COOKIE_HTTPONLY"] == "True"
    assert int(values["SECURE_HSTS_SECONDS"]) >= 31536000
    assert values["SECURE_SSL_REDIRECT"] == "True"
    assert values["X_FRAME_OPTIONS"] == "DENY"


def test_production_refuses_the_development_secret_key():
    env = {**os.environ, "DEBUG": "false"}
    env.pop("SECRET_KEY", None)
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=settings.BASE_DIR, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_secure_session_cookie_is_sent_with_the_secure_flag(api_client, make_user, settings):
    settings.SESSION_COOKIE_SECURE = True
    make_user("secure", password="correct-horse-battery-9")
    response = api_client.post("/api/v1/auth/login/", {"username": "secure", "password": "correct-horse-battery-9"},
                               format="json")
    assert response.cookies[settings.SESSION_COOKIE_NAME]["secure"] is True


def csp_directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.parametrize("path", ["/", "/learn/some-chapter", "/api/v1/chapters/", "/api/v1/health/",
                                  "/api/v1/no-such-endpoint/"])
def test_csp_forbids_inline_and_foreign_scripts(client, path):
    response = client.get(path)
    directives = csp_directives(response)
    assert directives["script-src"] == ["'self'"]
    assert directives["default-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"


def test_built_index_has_no_inline_script():
    import re

    index = settings.FRONTEND_DIST / "index.html"
    if not index.exists():
        pytest.skip("front end not built")
    html = index.read_text()
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, flags=re.S | re.I)
    assert scripts, "the SPA loads its bundle with a script tag"
    for attributes, body in scripts:
        assert "src=" in attributes and not body.strip(), attributes


def test_ping_is_minimal_no_database_and_still_carries_the_security_headers(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/api/v1/ping/")
    assert response.json() == {"ok": True}
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert client.post("/api/v1/ping/").status_code == 405
