"""The contract, operation by operation: every operation of the generated OpenAPI schema has an example
(tests/api/operation_examples.py); its valid request is valid against the documented request body, gets a 2xx whose
body validates against the documented response (no undocumented fields either), and its typical bad request gets a
4xx whose body is the documented error body. An example may come before its endpoint (engineers add endpoints
concurrently); it is used once the schema has the operation.

Bodies are validated with openapi-schema-validator's OpenAPI 3.0 validators against the schema's own components.
"""

import copy
import json
from urllib.parse import urlencode

import pytest

from tests.api.operation_examples import EXAMPLES, Bad, Ctx, Example

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
METHODS = ("get", "post", "put", "patch", "delete")
WHERE = "tests/api/operation_examples.py (EXAMPLES, keyed by operationId; see its docstring)"


def generated_schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


SCHEMA = generated_schema()
OPERATIONS = {op["operationId"]: (path, method, op) for path, item in SCHEMA["paths"].items()
              for method, op in item.items() if method in METHODS}


def closed(node):
    """The schema with every object of known properties closed (additionalProperties: false), so a field the
    server sends but the schema does not name fails too. `nullable` beside allOf/oneOf (no `type`), as
    drf-spectacular writes a nullable reference, is read as generators read it: that schema or null."""
    if isinstance(node, dict):
        node = {key: closed(value) for key, value in node.items()}
        if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        if node.get("nullable") and "type" not in node:
            return {"anyOf": [{key: value for key, value in node.items() if key != "nullable"}, {"enum": [None]}]}
        return node
    if isinstance(node, list):
        return [closed(value) for value in node]
    return node


CLOSED_COMPONENTS = closed(SCHEMA["components"])


def schema_errors(schema: dict, instance, *, response: bool) -> list[str]:
    from openapi_schema_validator import OAS30ReadValidator, OAS30WriteValidator, oas30_format_checker

    document = {**copy.deepcopy(closed(schema)), "components": CLOSED_COMPONENTS}
    validator = (OAS30ReadValidator if response else OAS30WriteValidator)(document, format_checker=oas30_format_checker)
    return [f"{'/'.join(map(str, error.absolute_path)) or '(body)'}: {error.message[:300]}"
            for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))][:10]


@pytest.fixture(scope="module")
def content(real_content):
    return real_content


def resolve(value, ctx: Ctx):
    return value(ctx) if callable(value) else value


def client_for(who: str, make_user):
    from rest_framework.test import APIClient

    client = APIClient()
    user = make_user(author=who == "author")
    if who != "anonymous":
        client.force_authenticate(user)
    return client, user


def send(client, method: str, path: str, path_params: dict, query: dict, body, headers: dict):
    url = path.format(**{name: str(value) for name, value in path_params.items()})
    if method == "get":
        return client.get(url, query, **headers)
    if query:
        url = f"{url}?{urlencode(query)}"
    if isinstance(body, bytes):  # a file upload (application/octet-stream)
        return getattr(client, method)(url, body, content_type="application/octet-stream", **headers)
    return getattr(client, method)(url, body, format="json", **headers)


def check_success(operation_id: str, operation: dict, example: Example, response) -> None:
    successes = sorted(code for code in operation["responses"] if code.startswith("2"))
    expected = str(example.status) if example.status else successes[0]
    assert str(response.status_code) == expected, (
        f"{operation_id}: expected {expected}, got {response.status_code}: {response.content[:1000]!r}")
    documented = operation["responses"][expected]
    content = documented.get("content")
    body = b"".join(response.streaming_content) if response.streaming else response.content  # a stream, read once
    if not content:
        assert not body, f"{operation_id}: {expected} is documented without a body"
        return
    media_type = response["Content-Type"].split(";")[0]
    assert media_type in content, f"{operation_id}: answered {media_type}, documented {list(content)}"
    if media_type == "application/json":
        errors = schema_errors(content[media_type]["schema"], json.loads(body), response=True)
        assert not errors, f"{operation_id}: the {expected} body does not match its schema:\n" + "\n".join(errors)


def check_error(operation_id: str, operation: dict, bad: Bad, response) -> None:
    code = response.status_code
    assert 400 <= code < 500, f"{operation_id}: the bad request got {code}: {response.content[:1000]!r}"
    if bad.status:
        assert code == bad.status, f"{operation_id}: the bad request got {code}, not {bad.status}: {response.content!r}"
    documented = operation["responses"].get(str(code))
    if bad.method is None:
        assert documented, f"{operation_id}: {code} is not documented"
    assert response["Content-Type"].split(";")[0] == "application/json", f"{operation_id}: {response['Content-Type']}"
    errors = schema_errors({"$ref": "#/components/schemas/ErrorBody"}, response.json(), response=True)
    assert not errors, f"{operation_id}: the {code} body is not the error body:\n" + "\n".join(errors)


def without_examples(examples: dict) -> str | None:
    missing = sorted(set(OPERATIONS) - set(examples))
    return f"operations without an example: {', '.join(missing)}; add one to {WHERE}" if missing else None


def test_every_operation_has_an_example():
    message = without_examples(EXAMPLES)
    assert not message, message


def test_a_missing_example_is_named():
    examples = {name: example for name, example in EXAMPLES.items() if name != "chapters_retrieve"}
    assert "chapters_retrieve; add one to tests/api/operation_examples.py" in without_examples(examples)


def test_the_checks_see_an_undocumented_field_and_a_missing_one():
    error = {"$ref": "#/components/schemas/ErrorBody"}
    assert not schema_errors(error, {"error": "not_found", "detail": "Not found.", "fields": {}}, response=True)
    assert "'extra' was unexpected" in schema_errors(
        error, {"error": "not_found", "detail": "Not found.", "fields": {}, "extra": 1}, response=True)[0]
    assert "'fields' is a required property" in schema_errors(
        error, {"error": "not_found", "detail": "Not found."}, response=True)[0]


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_operation(operation_id, content, make_user, django_capture_on_commit_callbacks, settings, monkeypatch):
    if operation_id not in EXAMPLES:
        pytest.fail(f"{operation_id} has no example: add one to {WHERE}")
    path, method, operation = OPERATIONS[operation_id]
    example = EXAMPLES[operation_id]
    client, user = client_for(example.who, make_user)
    ctx = Ctx(client, user, django_capture_on_commit_callbacks, settings, monkeypatch)

    # The typical bad request first (a good DELETE would leave nothing for it to miss).
    bad = example.bad
    bad_client = client_for(bad.who, make_user)[0] if bad.who else client
    bad_response = send(bad_client, bad.method or method, path,
                        resolve(bad.path if bad.path is not None else example.path, ctx),
                        resolve(bad.query if bad.query is not None else example.query, ctx),
                        resolve(bad.body if bad.body is not None else example.body, ctx), resolve(example.headers, ctx))
    check_error(operation_id, operation, bad, bad_response)

    if example.setup:
        example.setup(ctx)
    body = resolve(example.body, ctx)
    request_body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body is not None and request_body:
        errors = schema_errors(request_body["schema"], body, response=False)
        assert not errors, f"{operation_id}: the example's body does not match the request schema:\n" + "\n".join(errors)
    response = send(client, method, path, resolve(example.path, ctx), resolve(example.query, ctx), body,
                    resolve(example.headers, ctx))
    check_success(operation_id, operation, example, response)
