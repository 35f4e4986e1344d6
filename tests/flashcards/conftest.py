"""A small curriculum (two parts, one topic, three questions, one term, one number) and review helpers."""

import uuid
from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


@pytest.fixture
def content(db):
    from apps.courses.models import Chapter, Part
    from apps.glossary.models import Term
    from apps.quiz.models import NumberToMemorize, Question, Topic

    p1 = Part.objects.create(slug="foundations", title="Foundations", order=1)
    p2 = Part.objects.create(slug="serving", title="Serving", order=2)
    c1 = Chapter.objects.create(slug="c1", part=p1, order=1, title="C1", summary="s", body="b")
    c2 = Chapter.objects.create(slug="c2", part=p2, order=1, title="C2", summary="s", body="b")
    topic = Topic.objects.create(slug="batching")
    q1 = Question.objects.create(slug="q1", kind="open", level="core", prompt="What is *prefill*?", answer="Prompt pass.")
    q1.chapters.set([c1])
    q1.topics.set([topic])
    q2 = Question.objects.create(slug="q2", kind="open", level="core", prompt="What is decode?", answer="Token loop.")
    q2.chapters.set([c2])
    q3 = Question.objects.create(slug="q3", kind="open", level="core", prompt="Why batch?", answer="Throughput.")
    q3.chapters.set([c1])
    term = Term.objects.create(slug="ttft", term="Time to first token", aliases=["TTFT"], definition="Latency to the first token.")
    term.chapters.set([c1])
    number = NumberToMemorize.objects.create(slug="h100-bw", label="H100 HBM bandwidth", value="3.35", unit="TB/s",
                                             source="spec", derivation="From the datasheet.")
    number.chapters.set([c2])
    from apps.flashcards.content import sync_all_cards

    sync_all_cards()  # what the loader step does; signals only act on commit
    return {"parts": (p1, p2), "chapters": (c1, c2), "topic": topic, "questions": (q1, q2, q3), "term": term,
            "number": number}


@pytest.fixture
def card_of():
    from apps.flashcards.models import Card

    def get(source_type: str, obj) -> Card:
        return Card.objects.get(source_type=source_type, source_id=obj.pk)

    return get


@pytest.fixture
def quiet_settings():
    """Deterministic scheduling: no fuzz, UTC days starting at midnight."""

    def apply(user, **changes):
        from apps.flashcards.services import settings_update

        return settings_update(user=user, fuzzing=False, time_zone="UTC", day_rollover_hour=0, **changes)

    return apply


def new_review_id() -> str:
    return str(uuid.uuid4())


@pytest.fixture
def stranger(make_user):
    """Another signed-in learner, for checking that one learner's cards, presets and images stay theirs."""
    client = APIClient()
    client.user = make_user()
    client.force_authenticate(client.user)
    return client


def tree_nodes(tree: dict) -> dict[str, dict]:
    """Every deck of a deck-tree answer by slug, at any depth."""
    found = {}

    def walk(node):
        found[node["slug"]] = node
        for child in node["children"]:
            walk(child)

    for root in tree["decks"]:
        walk(root)
    return found


def exported_json(client, **query) -> dict:
    """The JSON export, read from its stream (the export is written a batch of cards at a time)."""
    import json

    response = client.get("/api/v1/flashcards/export/", {"format": "json", **query})
    assert response.status_code == 200 and response.streaming, response
    return json.loads(b"".join(response.streaming_content))


IMPORTS = "/api/v1/flashcards/imports/"


def import_file(client, body: bytes | dict, fmt: str) -> tuple[int, dict]:
    """Imports a file as the learner of ``client`` would, through the import job endpoint, and waits for it.

    POSTs ``body`` to ``/api/v1/flashcards/imports/?format=<fmt>`` as application/octet-stream (``fmt`` is "json"
    or "apkg"; a dict is sent as its JSON text). Returns ``(status, body)``:

    - the upload answered 202: the job is run here, in this process, as the worker would run it
      (``jobs.import_job_run``), and ``body`` is the job's final answer (GET ``/api/v1/flashcards/imports/<id>/``):
      ``body["status"]`` is "done", with ``body["result"]`` what the import answered (json: ``{"cards", "reviews"}``;
      apkg: ``{"cards", "updated", "reviews", "skipped", "decks", "media"}``), or "failed", with nothing changed and
      ``body["error"] == {"detail": ..., "fields": {field: [messages]}}`` naming what was refused (a field of the
      file such as "cards.0.source_id", or "file" for a file that cannot be read);
    - any other status (400: a bad ``format`` or an empty or oversized body; 401; 409: an import of this learner's
      is already queued or running): the upload was refused, no job was made, and ``body`` is the error answer
      (``{"detail", "fields"}``).
    """
    import json

    from apps.flashcards.interchange import jobs

    data = json.dumps(body).encode() if isinstance(body, dict) else body
    response = client.post(f"{IMPORTS}?format={fmt}", data, content_type="application/octet-stream")
    if response.status_code != 202:
        return response.status_code, response.json()
    job_id = response.json()["id"]
    jobs.import_job_run(job_id=job_id)
    final = client.get(f"{IMPORTS}{job_id}/")
    assert final.status_code == 200, final.content
    return 202, final.json()


EXPORTS = "/api/v1/flashcards/exports/"


def export_file(client, fmt: str) -> tuple[dict, bytes]:
    """Exports the collection of ``client``'s learner as the web client does, through the export job endpoint.

    POSTs ``{"format": fmt}`` to ``/api/v1/flashcards/exports/`` (202 expected), runs the job here, in this process,
    as the worker would (``export_jobs.export_job_run``), and downloads the finished file from the job's
    ``file_url``. Returns ``(job, content)``: the job's final answer (``status`` "done", ``progress`` 1.0) and the
    file's bytes, read from its stream."""
    from apps.flashcards.interchange import export_jobs

    response = client.post(EXPORTS, {"format": fmt}, format="json")
    assert response.status_code == 202, response.content
    export_jobs.export_job_run(job_id=response.json()["id"])
    job = client.get(response.json()["url"]).json()
    assert job["status"] == "done", job
    download = client.get(job["file_url"])
    assert download.status_code == 200 and download.streaming, download
    return job, b"".join(download.streaming_content)
