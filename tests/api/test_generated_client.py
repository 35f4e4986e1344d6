"""An API consumer's view: generate a typed client from the served schema and drive the API with it.

The schema is fetched from a running server, validated as OpenAPI, and turned into a Python package by
openapi-python-client (no warnings allowed) in a temporary folder. Then a scripted flow goes through that client
only: register without cookies, token, read a chapter, search, answer a numeric question, review flashcards (one
review replayed), export them and import the file back as a job polled to done, call simulators with typed answers, run a sweep to completion, propose a deployment for a design exercise and rate
its rationale, and read an error as ErrorBody.
"""

import enum
import importlib
import inspect
import json
import os
import subprocess
import sys
import time
import typing
import uuid
from pathlib import Path

import pytest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
PACKAGE = "llmkit_contract_client"
PASSWORD = "correct-horse-battery-9"
NUMERIC_QUESTION = "tokens-kv-for-document-llama-3-1-8b"  # 3,000 words at 0.75 words/token → 524.288 MB of KV


@pytest.fixture
def served(live_server, settings):
    from django.core.management import call_command

    call_command("load_content", verbosity=0)
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the sweep runs in the server process; no worker needed
    return live_server


@pytest.fixture
def schema_file(served, tmp_path) -> Path:
    import httpx
    from openapi_spec_validator import validate

    response = httpx.get(f"{served.url}/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json"})
    assert response.status_code == 200
    schema = response.json()
    validate(schema)
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(schema))
    return path


@pytest.fixture
def api(schema_file, tmp_path):
    """The generated package, imported; removed from sys.modules afterwards."""
    bin_dir = str(Path(sys.executable).parent)
    command = [str(Path(bin_dir) / "openapi-python-client"), "generate", "--path", str(schema_file),
               "--meta", "none", "--output-path", str(tmp_path / PACKAGE)]
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff post-hooks
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "warning" not in output.lower(), output
    assert "error" not in output.lower(), output
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def load(name: str):
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_a_consumer_flow_through_the_generated_client(api, served):
    models = load("models")
    auth = {name: load(f"api.auth.{name}") for name in ("auth_register_create", "auth_token_create")}
    sent_cookies = []

    def record(request):
        sent_cookies.append(request.headers.get("cookie"))

    # Register without cookies (no CSRF dance), asking for a token.
    anonymous = api.Client(base_url=served.url, raise_on_unexpected_status=True,
                           httpx_args={"event_hooks": {"request": [record]}})
    with anonymous:
        registered = auth["auth_register_create"].sync_detailed(
            client=anonymous, body=models.RegisterRequest(username="consumer", password=PASSWORD, issue_token=True))
    assert sent_cookies == [None]
    assert registered.status_code == 201, registered.content
    assert isinstance(registered.parsed, models.Registered)
    assert registered.parsed.username == "consumer"

    # The token endpoint, from another cookie-less client, gives the same key.
    with api.Client(base_url=served.url, raise_on_unexpected_status=True) as fresh:
        token = auth["auth_token_create"].sync(client=fresh, body=models.LoginRequest(username="consumer",
                                                                                      password=PASSWORD))
    assert isinstance(token, models.Token)
    assert token.token == registered.parsed.token
    client = api.AuthenticatedClient(base_url=served.url, token=token.token, prefix="Token",
                                     raise_on_unexpected_status=True, timeout=api_timeout())
    with client:
        read_a_chapter_and_search(client, models)
        answer_a_numeric_question(client, models)
        review_flashcards(client, models)
        export_and_import_back_as_a_job(client, models)
        simulate(client, models)
        sweep_and_poll(client, models)
        design_an_exercise(client, models)
        errors_are_typed(client, models)


def api_timeout():
    import httpx

    return httpx.Timeout(60.0)


def read_a_chapter_and_search(client, models):
    chapters_list, chapters_retrieve = load("api.chapters.chapters_list"), load("api.chapters.chapters_retrieve")
    page = chapters_list.sync(client=client)
    assert page.count >= 1
    first = page.results[0]
    chapter = chapters_retrieve.sync(slug=first.slug, client=client)
    assert isinstance(chapter, models.ChapterDetail)
    assert chapter.slug == first.slug and chapter.title

    found = load("api.search.search_retrieve").sync(client=client, q="kv cache")
    assert isinstance(found, models.SearchResponse)
    assert found.results, "searching for 'kv cache' finds something"
    assert all(isinstance(result, models.SearchResult) for result in found.results)


def answer_a_numeric_question(client, models):
    from apps.quiz.models import Question

    question = Question.objects.get(slug=NUMERIC_QUESTION)
    chapter = question.chapters.order_by("slug").first().slug
    create = load("api.practice.practice_sessions_create")
    session = create.sync(client=client, body=models.SessionCreateRequest(chapter=[chapter], kind=[models.QuestionKindEnum.NUMERIC]))
    assert isinstance(session, models.SessionCreated)
    assert question.id in [item.id for item in session.questions]
    answer = models.AnswerRequest(value=524.3, unit="MB")
    result = load("api.practice.practice_sessions_answers_create").sync(
        session_id=session.id, client=client, body=models.AnswerInputRequest(question=question.id, answer=answer))
    assert isinstance(result, models.AnswerResult)
    assert result.correct is True
    assert result.answered == 1


def review_flashcards(client, models):
    decks = load("api.flashcards.flashcards_decks_list").sync(client=client)
    deck = next(deck for deck in decks if deck.total > 0)
    added = load("api.flashcards.flashcards_decks_add_create").sync(slug=deck.slug, client=client)
    assert added.added == deck.total
    due = load("api.flashcards.flashcards_due_retrieve").sync(client=client, limit=5)
    assert isinstance(due, models.DueQueue) and due.cards

    review = load("api.flashcards.flashcards_review_create")
    review_ids = [uuid.uuid4() for _ in due.cards]
    answers = []
    for card, review_id in zip(due.cards, review_ids, strict=True):
        response = review.sync_detailed(card_id=card.card_id, client=client,
                                        body=models.ReviewInputRequest(rating=3, review_id=review_id))
        assert response.status_code == 201, response.content
        assert isinstance(response.parsed, models.ReviewOutput)
        answers.append(response.parsed)
    # A retried review (same review_id) answers again with what was stored, and is not counted twice.
    replay = review.sync_detailed(card_id=due.cards[0].card_id, client=client,
                                  body=models.ReviewInputRequest(rating=1, review_id=review_ids[0]))
    assert replay.status_code == 200
    assert replay.parsed.review_id == review_ids[0]
    assert replay.parsed.to_dict() == answers[0].to_dict()

    from apps.flashcards.models import ReviewLog

    assert ReviewLog.objects.filter(user__username="consumer").count() == len(due.cards)


def _format_arg(endpoint, models, value: str) -> dict:
    """The `format` query parameter as the generator spells it: its own name (an underscore added) and enum."""
    name = next(name for name in inspect.signature(endpoint.sync_detailed).parameters if name.startswith("format"))
    enum = getattr(models, "".join(part.title() for part in endpoint.__name__.rsplit(".", 1)[1].split("_")) + "Format")
    return {name: enum(value)}


def export_and_import_back_as_a_job(client, models):
    """The learner's JSON export, sent back as an import job and polled until done: the collection is the same."""
    from apps.flashcards.models import ReviewLog, UserCard

    held = (UserCard.objects.filter(user__username="consumer").count(),
            ReviewLog.objects.filter(user__username="consumer").count())
    export = load("api.flashcards.flashcards_export_retrieve")
    exported = export.sync_detailed(client=client, **_format_arg(export, models, "json"))
    assert exported.status_code == 200 and exported.content.startswith(b"{")

    import io

    types = load("types")
    create, retrieve = load("api.flashcards.flashcards_imports_create"), load("api.flashcards.flashcards_imports_retrieve")
    sent = create.sync_detailed(client=client, body=types.File(payload=io.BytesIO(exported.content),
                                                               mime_type="application/octet-stream"),
                                **_format_arg(create, models, "json"))
    assert sent.status_code == 202, sent.content
    job = sent.parsed
    deadline = time.monotonic() + 60
    while (status := str(getattr((polled := retrieve.sync(job_id=job.id, client=client)).status, "value",
                                 polled.status))) in ("queued", "running"):
        assert time.monotonic() < deadline, polled.to_dict()
        time.sleep(0.3)
    assert status == "done" and polled.progress == 1, polled.to_dict()
    assert (UserCard.objects.filter(user__username="consumer").count(),
            ReviewLog.objects.filter(user__username="consumer").count()) == held


def _models_in(annotation, endpoint) -> list[type]:
    """The model classes named by an annotation (a class, a union, or their string forms), less ErrorBody/None."""
    if isinstance(annotation, str):
        found = [getattr(endpoint, name.strip(), None) for name in annotation.split("|")]
    else:
        found = list(typing.get_args(annotation)) or [annotation]
    return [item for item in found if isinstance(item, type) and hasattr(item, "from_dict")
            and item.__name__ != "ErrorBody"]


def body_type(endpoint) -> type:
    """The request model an endpoint function takes, whatever the generator named it."""
    (model,) = _models_in(inspect.signature(endpoint.sync_detailed).parameters["body"].annotation, endpoint)
    return model


def answer_type(endpoint) -> type:
    """The success model an endpoint function returns."""
    (model,) = _models_in(inspect.signature(endpoint.sync).return_annotation, endpoint)
    return model


def simulate(client, models):
    kv_cache = load("api.simulators.simulators_kv_cache_create")
    kv = kv_cache.sync(client=client, body=body_type(kv_cache).from_dict(
        {"model": "llama-3.1-8b", "context_tokens": 8192, "batch_size": 16, "kv_dtype": "bf16"}))
    assert isinstance(kv, answer_type(kv_cache))
    assert kv.bytes_per_token == 2 * 32 * 8 * 128 * 2
    assert kv.total_bytes == 131_072 * 8192 * 16

    for name in ("fit", "step_time"):
        endpoint = load(f"api.simulators.simulators_{name}_create")
        answer = endpoint.sync(client=client, body=body_type(endpoint).from_dict(
            {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 8192}))
        assert isinstance(answer, answer_type(endpoint)), name
        assert answer.derivation, name


def sweep_and_poll(client, models):
    create, retrieve = load("api.simulators.simulators_sweeps_create"), load("api.simulators.simulators_sweeps_retrieve")
    body = body_type(create).from_dict({
        "model": "llama-3.1-8b", "gpu": "h100-sxm", "grid": {"max_num_seqs": [8, 16]},
        "workload": {"num_requests": 20, "arrival_rate_per_s": 10, "prompt_tokens": 100, "output_tokens": 10},
    })
    job = create.sync(client=client, body=body)
    assert isinstance(job, answer_type(create))
    finished = {models.SweepStatusEnum.SUCCEEDED, models.SweepStatusEnum.FAILED, models.SweepStatusEnum.CANCELLED}
    deadline = time.monotonic() + 60
    while True:
        detail = retrieve.sync(job_id=job.id, client=client)
        assert isinstance(detail, answer_type(retrieve))
        if detail.status in finished or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert detail.status == models.SweepStatusEnum.SUCCEEDED, detail.to_dict()
    assert detail.done_points == detail.total_points == 2


def operation(op_id: str):
    """The generated module of one operation, whichever tag folder the generator put it in."""
    import pkgutil

    api_package = load("api")
    for tag in pkgutil.iter_modules(api_package.__path__):
        try:
            return load(f"api.{tag.name}.{op_id}")
        except ModuleNotFoundError:
            continue
    raise AssertionError(f"no generated module for {op_id}")


def design_an_exercise(client, models):
    """List the design exercises, open one, propose a deployment (graded by the simulators, the attempt saved),
    rate the rationale against the key points, and read the attempt back: every answer typed."""
    list_op = operation("design_exercises_list")
    (chat,) = [member for value in vars(list_op).values() if isinstance(value, type) and issubclass(value, enum.Enum)
               for member in value if member.value == "chat"]  # the category filter's generated enum
    listing = list_op.sync(client=client, category=chat)
    exercises = listing if isinstance(listing, list) else listing.results
    assert exercises and all(e.category == "chat" for e in exercises)
    detail = operation("design_exercises_retrieve").sync(slug=exercises[0].slug, client=client)
    assert isinstance(detail, models.DesignExerciseDetail) and detail.key_point_count >= 2
    create = operation("design_exercises_attempts_create")
    gpu = detail.constraints.gpus[0]
    response = create.sync_detailed(slug=detail.slug, client=client, body=body_type(create).from_dict(
        {"deployment": {"gpu": gpu, "tensor_parallel": 1}, "rationale": "One GPU, to see what binds."}))
    assert response.status_code == 201, response.content
    attempt = response.parsed
    assert isinstance(attempt, models.DesignAttemptOutput) and attempt.id is not None
    assert attempt.grade.verdict in set(models.VerdictEnum) and 0 <= attempt.grade.score <= 100
    assert attempt.deployment.gpu == gpu and attempt.grade.summary
    rate = operation("design_exercises_attempts_partial_update")
    rated = rate.sync(slug=detail.slug, attempt_id=attempt.id, client=client,
                      body=body_type(rate).from_dict({"key_points_met": [0]}))
    assert isinstance(rated, models.DesignAttemptOutput) and rated.key_points_met == [0]
    assert rated.rationale_score == 1 / detail.key_point_count
    again = operation("design_exercises_attempts_retrieve").sync(slug=detail.slug, attempt_id=attempt.id,
                                                                  client=client)
    assert again.key_points_met == [0] and again.grade.score == attempt.grade.score


def errors_are_typed(client, models):
    kv_cache = load("api.simulators.simulators_kv_cache_create")
    response = kv_cache.sync_detailed(client=client, body=body_type(kv_cache)(model="no-such-model",
                                                                              context_tokens=8192))
    assert response.status_code == 400
    error = response.parsed
    assert isinstance(error, models.ErrorBody)
    assert error.error == "validation_error"
    assert "model" in error.fields.additional_properties
    assert error.detail

    missing = load("api.chapters.chapters_retrieve").sync_detailed(slug="no-such-chapter", client=client)
    assert missing.status_code == 404
    assert isinstance(missing.parsed, models.ErrorBody)
    assert missing.parsed.error == "not_found"
