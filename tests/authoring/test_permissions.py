"""Every content endpoint × every role × every action: only authors and superusers write; drafts are theirs to see."""

import pytest

from .api_fixtures import API, CHOICE, GPU_SPEC, MODEL

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "learner", "author", "admin"]
ACTIONS = ["list", "read_draft", "create", "update", "delete"]
EXPECTED = {
    "list": {"anonymous": 200, "learner": 200, "author": 200, "admin": 200},
    "read_draft": {"anonymous": 404, "learner": 404, "author": 200, "admin": 200},
    "create": {"anonymous": 401, "learner": 403, "author": 201, "admin": 201},
    "update": {"anonymous": 401, "learner": 403, "author": 200, "admin": 200},
    "delete": {"anonymous": 401, "learner": 403, "author": 204, "admin": 204},
}


def _endpoints(content) -> dict:
    """collection URL, draft detail URL, a valid new item, a valid change, and how to re-read the draft."""
    return {
        "chapters": (
            "/chapters/", "/chapters/ch-draft/",
            {"slug": "new-ch", "title": "New", "part": "p1", "order": 9, "summary": "S", "body": "## New\n\nText.",
             "prerequisites": ["ch-one"], "glossary": ["kv-cache"], "simulators": ["kv-cache"]},
            {"title": "Renamed"},
        ),
        "questions": (
            "/questions/", f"/questions/{content.draft_question.id}/",
            {"slug": "new-q", "kind": "single_choice", "level": "core", "chapters": ["ch-one"], "prompt": "P?",
             "answer": "A.", "options": CHOICE},
            {"level": "mid"},
        ),
        "glossary": (
            "/glossary/", "/glossary/draft-term/",
            {"slug": "new-term", "term": "New term", "definition": "D.", "chapters": ["ch-one"]},
            {"definition": "Changed."},
        ),
        "models": ("/simulators/models/", "/simulators/models/draft-model/", {**MODEL, "slug": "new-model"}, {"name": "X"}),
        "gpus": ("/simulators/gpus/", "/simulators/gpus/draft-gpu/", {**GPU_SPEC, "slug": "new-gpu"},
                 {"price_per_hour_usd": 3.5}),
    }


def _run(client, action: str, collection: str, draft: str, new_item: dict, change: dict):
    if action == "list":
        return client.get(API + collection)
    if action == "read_draft":
        return client.get(API + draft)
    if action == "create":
        return client.post(API + collection, new_item, format="json")
    if action == "update":
        return client.patch(API + draft, change, format="json")
    return client.delete(API + draft)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", ["chapters", "questions", "glossary", "models", "gpus"])
def test_permission_matrix(content, client_for, endpoint, role):
    """Each action in turn (delete last); one content set per endpoint × role keeps the matrix fast."""
    collection, draft, new_item, change = _endpoints(content)[endpoint]
    client, author = client_for(role), client_for("author")
    count = author.get(API + collection).json()["count"]
    got = {}
    for action in ACTIONS:
        response = _run(client, action, collection, draft, new_item, change)
        got[action] = response.status_code
        if response.status_code in (401, 403):
            assert response.json()["error"] in ("not_authenticated", "permission_denied")
        # A refused write changes nothing; an accepted delete leaves a 404.
        deleted = action == "delete" and response.status_code == 204
        assert author.get(API + draft).status_code == (404 if deleted else 200), action
    assert got == {action: EXPECTED[action][role] for action in ACTIONS}
    created = 1 if EXPECTED["create"][role] == 201 else 0
    deleted = 1 if EXPECTED["delete"][role] == 204 else 0
    assert author.get(API + collection).json()["count"] == count + created - deleted


def test_list_counts_drafts_for_authors_only(content, client_for):
    assert client_for("learner").get(f"{API}/chapters/").json()["count"] == 2
    assert client_for("author").get(f"{API}/chapters/").json()["count"] == 3
    assert client_for("anonymous").get(f"{API}/questions/").json()["count"] == 1
    assert client_for("admin").get(f"{API}/questions/").json()["count"] == 2


def test_put_is_not_a_write_method(content, author_client):
    response = author_client.put(f"{API}/chapters/ch-one/", {"title": "x"}, format="json")
    assert response.status_code == 405


def test_learner_progress_and_checks_stay_open_to_learners(content, learner_client):
    # Author-only writes must not swallow the learner actions that live under content URLs.
    assert learner_client.put(f"{API}/chapters/ch-one/progress/", {"status": "reading"}, format="json").status_code == 200
    check = learner_client.post(f"{API}/questions/{content.question.id}/check/", {"answer": {"selected": [0]}}, format="json")
    assert check.status_code == 200
