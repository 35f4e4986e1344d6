import pytest


@pytest.mark.django_db
def test_health_reports_database_and_broker(api_client):
    response = api_client.get("/api/v1/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["database"] == "ok"
    assert body["broker"] in {"ok", "unavailable", "eager", "unknown"}


@pytest.mark.django_db
def test_health_reports_unreachable_broker_without_crashing(api_client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = api_client.get("/api/v1/health/")
    assert response.status_code == 200
    assert response.json()["broker"] == "unavailable"


@pytest.mark.django_db
def test_unknown_api_path_is_json_404(client):
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"] == "not_found"


@pytest.mark.django_db
def test_malformed_json_is_400_not_500(api_client):
    response = api_client.generic("POST", "/api/v1/auth/login/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "parse_error"


@pytest.mark.django_db
def test_deeply_nested_json_is_rejected(api_client):
    body = "[" * 5000 + "]" * 5000
    response = api_client.generic("POST", "/api/v1/auth/login/", body, content_type="application/json")
    assert response.status_code == 400


@pytest.mark.django_db
def test_nan_constant_is_rejected(api_client):
    response = api_client.generic("POST", "/api/v1/auth/login/", '{"username": NaN}', content_type="application/json")
    assert response.status_code == 400


@pytest.mark.django_db
def test_schema_is_openapi_3(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/health/" in schema["paths"]


@pytest.mark.django_db
def test_docs_page_serves_without_cdn(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert b"cdn." not in response.content


@pytest.mark.django_db
def test_request_id_is_echoed(client):
    response = client.get("/api/v1/health/", HTTP_X_REQUEST_ID="abc123")
    assert response["X-Request-ID"] == "abc123"
