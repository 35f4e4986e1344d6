"""The OpenAPI schema says what the API does: a valid document, the error body on every 4xx/5xx, who may call
each operation, and binary downloads as binary."""

import pytest

ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}
OPTIONAL = [{}, {"tokenAuth": []}, {"cookieAuth": []}]
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def schema():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def test_the_schema_is_valid_openapi(schema):
    from openapi_spec_validator import validate

    validate(schema)


def test_the_error_body_component(schema):
    body = schema["components"]["schemas"]["ErrorBody"]
    assert body["required"] == ["error", "detail", "fields"]
    assert body["properties"]["fields"]["additionalProperties"] == {"type": "array", "items": {"type": "string"}}


def test_every_error_answer_has_the_error_body(schema):
    missing = []
    for path, method, operation in operations(schema):
        for code, response in operation["responses"].items():
            if code[0] not in "45" or path == "/api/v1/health/":
                continue
            if response.get("content", {}).get("application/json", {}).get("schema") != ERROR_REF:
                missing.append(f"{method.upper()} {path} {code}")
        for code in ("400", "403", "404", "429", "503") + (("409", "413") if method != "get" else ()):
            if code not in operation["responses"]:
                missing.append(f"{method.upper()} {path} {code} undocumented")
    assert not missing, missing


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/parts/", "/api/v1/chapters/", "/api/v1/chapters/{slug}/", "/api/v1/glossary/",
        "/api/v1/glossary/{slug}/", "/api/v1/questions/", "/api/v1/questions/{id}/", "/api/v1/simulators/models/",
        "/api/v1/simulators/models/{slug}/", "/api/v1/simulators/gpus/", "/api/v1/simulators/gpus/{slug}/",
        "/api/v1/search/", "/api/v1/concept-map/", "/api/v1/topics/", "/api/v1/numbers/", "/api/v1/diagnosis/",
    ],
)
def test_public_reads_take_credentials_but_need_none(schema, path):
    assert schema["paths"][path]["get"]["security"] == OPTIONAL


def test_public_simulators_take_credentials_but_need_none(schema):
    calculators = [path for path, item in schema["paths"].items()
                   if path.startswith("/api/v1/simulators/") and "{" not in path and "post" in item
                   and not path.endswith(("/models/", "/gpus/", "/sweeps/", "/engine-jobs/"))]
    assert len(calculators) >= 12
    for path in calculators:
        assert schema["paths"][path]["post"]["security"] == OPTIONAL, path


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/api/v1/chapters/"), ("patch", "/api/v1/glossary/{slug}/"), ("delete", "/api/v1/questions/{id}/"),
     ("get", "/api/v1/flashcards/due/"), ("post", "/api/v1/simulators/sweeps/"), ("get", "/api/v1/auth/me/"),
     ("post", "/api/v1/simulators/engine-jobs/")],
)
def test_writes_and_personal_data_need_credentials(schema, method, path):
    operation = schema["paths"][path][method]
    assert operation["security"] == [{"tokenAuth": []}, {"cookieAuth": []}]
    assert operation["responses"]["401"]["content"]["application/json"]["schema"] == ERROR_REF


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/api/v1/auth/register/"), ("post", "/api/v1/auth/token/"), ("get", "/api/v1/auth/csrf/"),
     ("post", "/api/v1/auth/login/"), ("get", "/api/v1/health/")],
)
def test_anonymous_endpoints_need_nothing(schema, method, path):
    operation = schema["paths"][path][method]
    assert operation["security"] == []
    assert "401" not in operation["responses"]


def test_flashcard_export_is_documented_as_files(schema):
    content = schema["paths"]["/api/v1/flashcards/export/"]["get"]["responses"]["200"]["content"]
    binary = {"type": "string", "format": "binary"}
    assert content["application/octet-stream"]["schema"] == binary
    assert content["text/csv"]["schema"] == binary
    assert "application/json" in content
    # A generated client decodes with the first media type: the binary one, so no format makes it crash.
    assert next(iter(content)) == "application/octet-stream"


@pytest.mark.django_db
def test_export_answers_with_the_documented_media_types(learner_client):
    for kind, media_type in [("apkg", "application/octet-stream"), ("csv", "text/csv"), ("json", "application/json")]:
        response = learner_client.get(f"/api/v1/flashcards/export/?format={kind}")
        assert response.status_code == 200
        assert response["Content-Type"].split(";")[0] == media_type


@pytest.mark.django_db
def test_anonymous_reads_answer_as_their_documented_security(schema, client):
    """Every GET without path parameters, called with no credentials: 401 exactly where the schema says credentials
    are required (the practice-session and attempt lists once answered 401 while documented as optional)."""
    checked = {"optional": 0, "required": 0}
    for path, method, operation in operations(schema):
        if method != "get" or "{" in path or operation["security"] == []:
            continue
        required = {} not in operation["security"]
        status = client.get(path).status_code
        assert (status == 401) == required, f"GET {path}: {status}, documented security {operation['security']}"
        checked["required" if required else "optional"] += 1
    assert checked["optional"] >= 10 and checked["required"] >= 5, checked


@pytest.mark.django_db
def test_the_served_schema_is_generated_once_per_format_and_revalidated_by_etag(client, monkeypatch):
    from drf_spectacular.generators import SchemaGenerator

    from apps.core.views import CachedSchemaView

    monkeypatch.setattr(CachedSchemaView, "rendered", {})
    generated = []
    real = SchemaGenerator.get_schema
    monkeypatch.setattr(SchemaGenerator, "get_schema", lambda self, **kw: generated.append(1) or real(self, **kw))
    first, second = client.get("/api/schema/"), client.get("/api/schema/")
    assert first.status_code == second.status_code == 200 and first.content == second.content
    assert first["Content-Type"].startswith("application/vnd.oai.openapi") and b"openapi: 3" in first.content
    assert len(generated) == 1
    as_json = client.get("/api/schema/?format=json")
    assert as_json.json()["info"]["title"] and len(generated) == 2  # one more format, one more generation
    assert client.get("/api/schema/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert client.get("/api/schema/", HTTP_IF_NONE_MATCH='"stale"').status_code == 200
