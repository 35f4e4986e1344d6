"""Size limits on uploads and imports: flashcards import (the import job's upload limit for a JSON collection,
100 MB), engine traces (2,000 rows / the body limit)."""

import json

import pytest
from django.conf import settings

from tests.flashcards.conftest import import_file

pytestmark = pytest.mark.django_db


def test_flashcards_import_over_the_limit_is_refused(learner_client):
    from apps.flashcards.interchange import jobs
    from apps.flashcards.models import ImportJob

    padding = b"x" * (jobs.MAX_UPLOAD_BYTES["json"] + 16)
    body = b'{"format": "llmkit-flashcards", "version": 1, "cards": [], "pad": "' + padding + b'"}'
    status, answer = import_file(learner_client, body, "json")
    assert status in (400, 413)
    assert "too large" in answer["detail"].lower()
    assert not ImportJob.objects.exists()  # refused at upload: nothing stored


def test_flashcards_import_with_too_many_cards_names_the_field(learner_client):
    body = {"format": "x", "version": 1, "cards": [{}] * 20_001}
    status, job = import_file(learner_client, body, "json")
    assert status == 202 and job["status"] == "failed", job
    assert "cards" in job["error"]["fields"] or "cards.0.state" in job["error"]["fields"]


def engine_body(trace) -> dict:
    return {"model": "llama-3.1-8b", "gpu": "h100-sxm", "workload": {"trace": trace}}


def test_engine_trace_over_the_row_limit_is_400(api_client):
    trace = [[i * 0.01, 100, 10] for i in range(2001)]
    response = api_client.post("/api/v1/simulators/engine/", engine_body(trace), format="json")
    assert response.status_code == 400
    assert "workload.trace" in response.json()["fields"]


def test_engine_trace_over_the_body_limit_is_400(api_client):
    row = [0.0, 100, 10, "p" * 1000]
    trace = [row] * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1000 + 10)
    raw = json.dumps(engine_body(trace)).encode()
    assert len(raw) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = api_client.generic("POST", "/api/v1/simulators/engine/", raw, content_type="application/json")
    assert response.status_code in (400, 413)


def test_engine_trace_with_huge_values_names_the_row(api_client):
    response = api_client.post("/api/v1/simulators/engine/", engine_body([[0.0, 10**12, 10]]), format="json")
    assert response.status_code == 400
    assert any(name.startswith("workload.trace") for name in response.json()["fields"])
