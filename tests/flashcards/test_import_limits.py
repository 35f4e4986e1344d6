"""The collection import is allowed past the global 2 MB body limit, up to its own (the import job's upload limit)."""

import json

import pytest
from django.conf import settings

from tests.flashcards.conftest import import_file

pytestmark = pytest.mark.django_db


def test_import_larger_than_the_global_body_limit_is_parsed(learner_client):
    padding = " " * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1024)  # whitespace: the schema has no room for extra fields
    body = json.dumps({"format": "llmkit-flashcards", "version": 1, "cards": []}) + padding
    status, job = import_file(learner_client, body.encode(), "json")
    assert status == 202 and job["status"] == "done", job
    assert job["result"] == {"cards": 0, "reviews": 0}


def test_other_endpoints_keep_the_global_limit(learner_client):
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1024)
    body = json.dumps({"status": "understood", "pad": padding})
    response = learner_client.generic("PUT", "/api/v1/chapters/any/progress/", body, content_type="application/json")
    assert response.status_code in (400, 413)
