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
                   and not path.endswith(("/models/", "/gpus/", "/sweeps/"))]
    assert len(calculators) >= 12
    for path in calculators:
        assert schema["paths"][path]["post"]["security"] == OPTIONAL, path


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/api/v1/chapters/"), ("patch", "/api/v1/glossary/{slug}/"), ("delete", "/api/v1/questions/{id}/"),
     ("get", "/api/v1/flashcards/due/"), ("post", "/api/v1/simulators/sweeps/"), ("get", "/api/v1/auth/me/")],
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
