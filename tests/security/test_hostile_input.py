"""Hostile input: oversized and deeply nested bodies, awkward unicode, huge numbers — 4xx or 2xx, never a 5xx."""

import json

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db
API = "/api/v1"
# Strings as they travel inside JSON text: "\\ud800" is a lone surrogate escape, legal JSON but not encodable.
AWKWARD = [
    "nul\\u0000byte", "\\ud800", "\\udfff tail", "lead \\ud83d", "\u202eevil\u202c", "\u200f\u200e\u2066x\u2069",
    "🦙🚀👩‍👩‍👧‍👦", "e\u0301" * 500, "\ufeffbom", "a" * 100_000, "", " ", "%00", "../../etc/passwd", "'; DROP TABLE x;--",
]


def post_raw(client, path: str, raw: bytes):
    return client.generic("POST", API + path, raw, content_type="application/json")


def json_with(template: dict, value: str) -> bytes:
    """The template as JSON with every "@" string replaced by `value` spliced in raw (escapes kept as written)."""
    return json.dumps(template).replace('"@"', '"' + value.replace('"', '\\"') + '"').encode()


def assert_handled(response, where) -> None:
    assert response.status_code < 500, (where, response.status_code, response.content[:300])
    if response.status_code >= 400:
        assert response["Content-Type"].startswith("application/json"), where


# --- oversized bodies ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/auth/register/", "/auth/login/", "/practice/sessions/", "/simulators/kv-cache/",
                                  "/simulators/engine/", "/flashcards/1/review/",
                                  "/progress/merge/"])
def test_bodies_over_the_upload_limit_are_refused(learner_client, path):
    raw = b'{"x": "' + b"a" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10) + b'"}'
    response = post_raw(learner_client, path, raw)
    assert response.status_code in (400, 413), (path, response.status_code)
    assert "too large" in response.json()["detail"].lower()


# --- nesting -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [40, 1000, 100_000])
@pytest.mark.parametrize("path", ["/simulators/engine/", "/practice/sessions/", "/auth/login/"])
def test_deeply_nested_json_is_400(api_client, path, depth):
    raw = b'{"workload": ' + b"[" * depth + b"]" * depth + b"}"
    response = post_raw(api_client, path, raw)
    assert response.status_code == 400, (path, depth, response.status_code)
    assert response.json()["error"] == "parse_error"


def test_invalid_utf8_bytes_are_400(api_client):
    for raw in (b'{"username": "\xed\xa0\x80", "password": "x"}', b'{"username": "\xff\xfe"}', b"\x00\x00\x00"):
        response = post_raw(api_client, "/auth/login/", raw)
        assert response.status_code == 400, raw


# --- awkward strings in every text input ---------------------------------------------------------------------

BODIES = [
    ("/auth/register/", {"username": "@", "password": "@"}),
    ("/auth/register/", {"username": "someone", "password": "@", "email": "@"}),
    ("/auth/login/", {"username": "@", "password": "@"}),
    ("/auth/token/", {"username": "@", "password": "@"}),
    ("/practice/sessions/", {"part": ["@"], "chapter": ["@"], "topic": ["@"], "level": ["@"], "kind": ["@"]}),
    ("/practice/sessions/", {"mode": "@"}),
    ("/simulators/kv-cache/", {"model": "@", "context_tokens": 10}),
    ("/simulators/request-walk/", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "prompt": "@"}),
    ("/simulators/prefix-cache/", {"texts": ["@"], "block_size": 16, "capacity_blocks": 8}),
]


@pytest.mark.parametrize(("path", "template"), BODIES)
def test_awkward_strings_in_json_bodies_never_cause_a_5xx(api_client, path, template):
    for value in AWKWARD:
        assert_handled(post_raw(api_client, path, json_with(template, value)), (path, value[:20]))


def test_awkward_strings_in_practice_answers_never_cause_a_5xx(learner_client, content):
    created = learner_client.post(f"{API}/practice/sessions/", {"size": 1}, format="json").json()
    url = f"/practice/sessions/{created['id']}/answers/"
    for value in AWKWARD:
        for template in ({"question": content.question.id, "self_rating": "@"},
                         {"question": content.question.id, "answer": {"text": "@", "@": "@"}}):
            assert_handled(post_raw(learner_client, url, json_with(template, value)), value[:20])
    check = f"/questions/{content.question.id}/check/"
    for value in AWKWARD:
        assert_handled(post_raw(learner_client, check, json_with({"answer": {"choice": "@"}}, value)), value[:20])


QUERY_VALUES = ["%00", "%ED%A0%80", "%FF%FE", "%E2%80%AE%E2%80%AC", "%F0%9F%A6%99" * 30, "a" * 5000, "%25%00%25",
                "\u202eevil", "e\u0301" * 100, "' OR 1=1 --", "%5B%5D"]
QUERY_PATHS = ["/search/?q={}", "/glossary/?q={}", "/questions/?topic={}", "/questions/?level={}&kind={}",
               "/chapters/?part={}", "/flashcards/due/?deck={}", "/numbers/?page={}", "/glossary/?page_size={}",
               "/concept-map/path/?to={}", "/simulators/models/{}/", "/chapters/{}/"]


@pytest.mark.parametrize("template", QUERY_PATHS)
def test_awkward_query_strings_never_cause_a_5xx(learner_client, content, template):
    for value in QUERY_VALUES:
        url = API + template.replace("{}", value)
        assert_handled(learner_client.get(url), url[:80])


# --- huge and odd numbers in the simulators -------------------------------------------------------------------

NUMBERS = ["1e308", "1" + "0" * 400, "-0", "-1", "-1e308", "1e309", "-1e309", "0.0000000001", "1.5", '"12"',
           "[]", "{}", "null"]
SIM_FIELDS = [
    ("kv-cache", {"model": "llama-3.1-8b", "context_tokens": 4096}, "context_tokens"),
    ("kv-cache", {"model": "llama-3.1-8b", "context_tokens": 4096}, "batch_size"),
    ("kv-cache", {"model": "llama-3.1-8b", "context_tokens": 4096}, "tensor_parallel"),
    ("fit", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 4096}, "gpu_memory_utilization"),
    ("fit", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 4096}, "max_num_batched_tokens"),
    ("step-time", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 1024}, "batch_size"),
    ("step-time", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 1024}, "prompt_tokens"),
    ("speculative", {"acceptance_rate": 0.7, "draft_tokens": 4, "draft_cost": 0.1}, "acceptance_rate"),
    ("collectives", {"op": "all_reduce", "num_gpus": 8, "message_bytes": 1e6, "gpu": "h100-sxm"}, "message_bytes"),
    ("engine", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "workload": {"num_requests": 10}}, "workload.num_requests"),
    ("engine", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "workload": {"num_requests": 10}},
     "workload.arrival_rate_per_s"),
    ("engine", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "workload": {"num_requests": 10}},
     "workload.prompt_tokens"),
]
# Values a field may legitimately accept; everything else must be a 400 naming the field.
ACCEPTABLE = {"1.5": {"gpu_memory_utilization", "workload.arrival_rate_per_s", "workload.prompt_tokens",
                      "message_bytes"},
              "0.0000000001": {"acceptance_rate", "message_bytes"}, "-0": {"acceptance_rate"}, "null": {"prompt_tokens"},
              '"12"': {"context_tokens", "batch_size", "tensor_parallel", "max_num_batched_tokens", "prompt_tokens",
                       "workload.num_requests", "workload.prompt_tokens", "workload.arrival_rate_per_s",
                       "message_bytes"}}


def with_number(body: dict, field: str, raw_number: str) -> bytes:
    *parents, leaf = field.split(".")
    target = body = json.loads(json.dumps(body))
    for name in parents:
        target = target.setdefault(name, {})
    target[leaf] = "@@number@@"
    return json.dumps(body).replace('"@@number@@"', raw_number).encode()


@pytest.mark.parametrize(("name", "body", "field"), SIM_FIELDS)
def test_huge_and_odd_numbers_are_400_naming_the_field(api_client, name, body, field):
    from tests.simulators.api_helpers import load_real_catalog

    load_real_catalog()
    for number in NUMBERS:
        response = post_raw(api_client, f"/simulators/{name}/", with_number(body, field, number))
        if field in ACCEPTABLE.get(number, ()) and response.status_code == 200:
            continue
        assert response.status_code == 400, (name, field, number, response.status_code, response.content[:200])
        named = response.json()["fields"]
        assert any(key == field or key.startswith(field + ".") for key in named), (name, field, number, named)


def test_an_integer_too_long_to_convert_is_400(api_client):
    raw = b'{"model": "llama-3.1-8b", "context_tokens": ' + b"9" * 5000 + b"}"
    response = post_raw(api_client, "/simulators/kv-cache/", raw)
    assert response.status_code == 400
