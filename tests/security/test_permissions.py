"""Only authors change content: anonymous writes get 401, learners 403; signed-in endpoints answer 401 to strangers."""

import re

import pytest

pytestmark = pytest.mark.django_db
API = "/api/v1"
WRITE_METHODS = ("post", "put", "patch", "delete")
# Content resources (authored, shared by everyone) and the learner actions that live under them.
CONTENT_PREFIXES = ("/parts/", "/chapters/", "/glossary/", "/questions/", "/topics/", "/diagnosis/", "/numbers/",
                    "/concept-map/", "/simulators/models/", "/simulators/gpus/", "/flashcards/decks/")
# attempts...answer: investigations; preset: a learner's own option preset for a deck (DeckPresetAssignment)
LEARNER_ACTIONS = re.compile(r"/(progress|check|add|attempts|evidence|answer|preset)/$")


def content_write_operations() -> list[tuple[str, str]]:
    """Every documented write on a content resource, from the OpenAPI schema (so new endpoints are covered)."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = []
    for path, item in schema["paths"].items():
        relative = path.removeprefix(API)
        if not relative.startswith(CONTENT_PREFIXES) or LEARNER_ACTIONS.search(relative):
            continue
        operations += [(method, path) for method in WRITE_METHODS if method in item]
    return operations


def fill(path: str, content) -> str:
    values = {"slug": content.chapter.slug, "id": str(content.question.id), "pk": str(content.question.id)}
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), content.term.slug), path)


def test_documented_content_writes_refuse_anonymous_with_401_and_learners_with_403(api_client, learner_client,
                                                                                  content):
    failures = []
    for method, path in content_write_operations():
        url = fill(path, content)
        anonymous = getattr(api_client, method)(url, {}, format="json").status_code
        learner = getattr(learner_client, method)(url, {}, format="json").status_code
        if (anonymous, learner) != (401, 403):
            failures.append(f"{method.upper()} {url}: anonymous {anonymous}, learner {learner}")
    assert not failures, failures


# Writes on the read-only content URLs that exist today: refused (405 where no write exists), nothing changes.
READ_ONLY_WRITES = [
    ("post", "/chapters/"), ("put", "/chapters/sec-chapter/"), ("patch", "/chapters/sec-chapter/"),
    ("delete", "/chapters/sec-chapter/"), ("post", "/parts/"), ("delete", "/glossary/sec-term/"),
    ("patch", "/glossary/sec-term/"), ("post", "/glossary/"), ("post", "/questions/"), ("put", "/questions/{q}/"),
    ("delete", "/questions/{q}/"), ("post", "/topics/"), ("post", "/numbers/"), ("post", "/diagnosis/"),
    ("post", "/simulators/models/"), ("delete", "/simulators/gpus/h100-sxm/"), ("post", "/flashcards/decks/"),
]


@pytest.mark.parametrize(("method", "path"), READ_ONLY_WRITES)
def test_writes_on_read_only_content_never_succeed(api_client, learner_client, content, method, path):
    from apps.courses.models import Chapter
    from apps.glossary.models import Term

    url = API + path.replace("{q}", str(content.question.id))
    body = {"title": "defaced", "term": "defaced", "prompt": "defaced"}
    for client in (api_client, learner_client):
        status = getattr(client, method)(url, body, format="json").status_code
        assert status in (401, 403, 405), (client, status)
    assert Chapter.objects.get(slug="sec-chapter").title == "Chapter"
    assert Term.objects.get(slug="sec-term").term == "Prefill"


SIGNED_IN_ONLY = [
    ("get", "/progress/"), ("put", "/chapters/sec-chapter/progress/"), ("get", "/practice/sessions/"),
    ("get", "/flashcards/due/"), ("post", "/flashcards/decks/topic-sec-topic/add/"), ("get", "/srs/settings/"),
    ("get", "/flashcards/export/"), ("post", "/flashcards/optimize/"), ("get", "/simulators/sweeps/"),
    ("post", "/simulators/sweeps/"), ("get", "/auth/me/"), ("get", "/diagnosis/attempts/"),
]


@pytest.mark.parametrize(("method", "path"), SIGNED_IN_ONLY)
def test_signed_in_endpoints_answer_anonymous_with_401_and_a_challenge(api_client, content, method, path):
    response = getattr(api_client, method)(API + path, {}, format="json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")
    assert response.json()["error"] == "not_authenticated"
