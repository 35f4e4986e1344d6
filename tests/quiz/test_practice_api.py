"""Practice and interview sessions: ownership, anonymous tokens, no double counting, summaries."""

import uuid

import pytest

from apps.quiz.models import PracticeAnswer

from .factories import make_question

pytestmark = pytest.mark.django_db

CORRECT = {
    "numeric": {"value": "16 GiB"},
    "ordering": {"order": ["Tokenize", "Prefill", "Decode", "Detokenize"]},
    "categorize": {"placement": {"Prefill of a 4k prompt": "Compute-bound", "Decode at batch 1": "Memory-bound", "Large GEMM": "Compute-bound", "KV cache read": "Memory-bound"}},
    "matching": {"matches": {"KV cache full": "Add blocks", "Slow prefill": "Chunk it", "Idle GPUs": "Batch more"}},
}


def start(client, **payload):
    return client.post("/api/v1/practice/sessions/", payload, format="json")


def answer(client, session_id, payload, token=None):
    headers = {"HTTP_X_PRACTICE_TOKEN": token} if token else {}
    return client.post(f"/api/v1/practice/sessions/{session_id}/answers/", payload, format="json", **headers)


def test_signed_in_session_flow_and_summary(learner_client, one_of_each):
    created = start(learner_client, size=50)
    assert created.status_code == 201
    session = created.json()
    assert session["session_token"] is None
    assert len(session["questions"]) == 7
    assert "correct" not in str(session["questions"]) and "Model answer text" not in str(session["questions"])
    ids = {q["kind"]: q["id"] for q in session["questions"]}
    sid = session["id"]
    result = answer(learner_client, sid, {"question": ids["numeric"], "answer": CORRECT["numeric"]})
    assert result.status_code == 201
    body = result.json()
    assert (body["correct"], body["score"], body["answered"], body["remaining"], body["finished"]) == (True, 1.0, 1, 6, False)
    assert "Model answer text" in body["answer_html"]
    # Wrong ordering: reversed keeps 0 of 3 adjacent pairs.
    wrong = answer(learner_client, sid, {"question": ids["ordering"], "answer": {"order": ["Detokenize", "Decode", "Prefill", "Tokenize"]}}).json()
    assert (wrong["correct"], wrong["score"]) == (False, 0.0)
    hard = answer(learner_client, sid, {"question": ids["open"], "self_rating": "hard"}).json()
    assert (hard["correct"], hard["score"]) == (False, 0.5)
    summary = learner_client.get(f"/api/v1/practice/sessions/{sid}/summary/").json()
    assert (summary["answered"], summary["total"], summary["correct"]) == (3, 7, 1)
    assert summary["score"] == pytest.approx(0.5)  # (1 + 0 + 0.5) / 3
    by_topic = {t["topic"]: t["score"] for t in summary["by_topic"]}
    assert by_topic == {"kv-cache": 1.0, "request-path": 0.0, "drag-and-drop": 0.0, "scheduler": 0.5}
    weakest = summary["weakest_topics"]
    assert [t["topic"] for t in weakest] == ["request-path", "scheduler"]  # drag-and-drop is a format, not a topic
    assert weakest[0]["chapters"] == [{"slug": "continuous-batching", "title": "Chapter continuous-batching", "url": "/learn/continuous-batching"}]
    assert {lvl["level"]: lvl["score"] for lvl in summary["by_level"]} == {"mid": 1.0, "senior": 0.0, "staff": 0.5}
    listing = learner_client.get("/api/v1/practice/sessions/").json()
    assert [(s["id"], s["answered"], s["size"]) for s in listing["results"]] == [(sid, 3, 7)]


def test_answering_the_same_question_twice_is_409_and_counts_once(learner_client, one_of_each):
    session = start(learner_client, kind=["numeric"]).json()
    qid = session["questions"][0]["id"]
    assert answer(learner_client, session["id"], {"question": qid, "answer": {"value": 1, "unit": "GiB"}}).status_code == 201
    again = answer(learner_client, session["id"], {"question": qid, "answer": CORRECT["numeric"]})
    assert again.status_code == 409
    assert PracticeAnswer.objects.filter(session_id=session["id"]).count() == 1
    summary = learner_client.get(f"/api/v1/practice/sessions/{session['id']}/summary/").json()
    assert (summary["answered"], summary["score"], summary["finished"]) == (1, 0.0, True)


def test_answer_validation_names_fields(learner_client, one_of_each):
    session = start(learner_client, size=50).json()
    ids = {q["kind"]: q["id"] for q in session["questions"]}
    sid = session["id"]
    cases = [
        ({"question": ids["open"]}, "self_rating"),
        ({"question": ids["open"], "self_rating": "meh"}, "self_rating"),
        ({"question": ids["numeric"], "self_rating": "good"}, "self_rating"),
        ({"question": ids["numeric"]}, "answer"),
        ({"question": ids["numeric"], "answer": {"value": "16 s"}}, "answer.unit"),
        ({"question": ids["ordering"], "answer": {"order": []}}, "answer.order"),
        ({"question": 987654, "answer": {}}, "question"),
        ({"answer": {}}, "question"),
        ({"question": ids["numeric"], "answer": CORRECT["numeric"], "duration_ms": -1}, "duration_ms"),
    ]
    for payload, field in cases:
        response = answer(learner_client, sid, payload)
        assert response.status_code == 400, payload
        assert field in response.json()["fields"], (payload, response.json())
    assert PracticeAnswer.objects.count() == 0


def test_session_create_validation(api_client, one_of_each):
    for payload, field in [
        ({"size": 0}, "size"), ({"size": 51}, "size"), ({"level": ["guru"]}, "level.0"), ({"kind": "numeric"}, "kind"),
        ({"mode": "exam"}, "mode"), ({"topic": ["no-such-topic"]}, "filters"), ({"seconds_per_question": 1, "mode": "interview"}, "seconds_per_question"),
    ]:
        response = start(api_client, **payload)
        assert response.status_code == 400, payload
        assert field in response.json()["fields"], (payload, response.json())


def test_filters_and_size_pick_matching_published_questions(api_client, one_of_each, chapters):
    make_question("numeric", status="draft", topics=["kv-cache"], chapters=[chapters["kv"]])
    session = start(api_client, topic=["kv-cache", "roofline"], size=50).json()
    assert sorted(q["kind"] for q in session["questions"]) == ["categorize", "multiple_choice", "numeric"]
    assert len(start(api_client, size=2).json()["questions"]) == 2
    assert [q["kind"] for q in start(api_client, part=["scaling"]).json()["questions"]] == ["open"]


def test_anonymous_session_needs_its_token(api_client, learner_client, one_of_each):
    created = start(api_client, kind=["numeric", "open"]).json()
    token, sid = created["session_token"], created["id"]
    assert token and len(token) >= 32
    qid = next(q["id"] for q in created["questions"] if q["kind"] == "numeric")
    assert answer(api_client, sid, {"question": qid, "answer": CORRECT["numeric"]}).status_code == 404
    assert answer(api_client, sid, {"question": qid, "answer": CORRECT["numeric"]}, token="0" * 64).status_code == 404
    assert answer(learner_client, sid, {"question": qid, "answer": CORRECT["numeric"]}).status_code == 404
    assert answer(api_client, sid, {"question": qid, "answer": CORRECT["numeric"]}, token=token).status_code == 201
    assert api_client.get(f"/api/v1/practice/sessions/{sid}/summary/").status_code == 404
    summary = api_client.get(f"/api/v1/practice/sessions/{sid}/summary/", HTTP_X_PRACTICE_TOKEN=token).json()
    assert summary["answered"] == 1
    detail = api_client.get(f"/api/v1/practice/sessions/{sid}/", HTTP_X_PRACTICE_TOKEN=token).json()
    assert "session_token" not in detail and detail["answers"][0]["question"] == qid
    assert api_client.get("/api/v1/practice/sessions/").status_code in (401, 403)


def test_other_users_session_is_404(learner_client, make_user, one_of_each):
    from rest_framework.test import APIClient

    session = start(learner_client, size=3).json()
    stranger = APIClient()
    stranger.force_authenticate(make_user("stranger"))
    qid = session["questions"][0]["id"]
    for url in (f"/api/v1/practice/sessions/{session['id']}/", f"/api/v1/practice/sessions/{session['id']}/summary/"):
        assert stranger.get(url).status_code == 404
    assert answer(stranger, session["id"], {"question": qid, "self_rating": "easy"}).status_code == 404
    assert stranger.get("/api/v1/practice/sessions/").json()["count"] == 0
    assert learner_client.get(f"/api/v1/practice/sessions/{uuid.uuid4()}/").status_code == 404


def test_self_rating_scores(learner_client, chapters):
    for index in range(4):
        make_question("open", topics=[f"topic-{index}"], chapters=[chapters["kv"]])
    session = start(learner_client, size=4).json()
    scores = {}
    for question, rating in zip(session["questions"], ["again", "hard", "good", "easy"], strict=True):
        body = answer(learner_client, session["id"], {"question": question["id"], "self_rating": rating}).json()
        scores[rating] = (body["score"], body["correct"])
    assert scores == {"again": (0.0, False), "hard": (0.5, False), "good": (0.8, True), "easy": (1.0, True)}


def test_interview_mode_is_balanced_timed_and_reports(learner_client, chapters):
    levels = ["core", "mid", "senior", "staff"]
    for level in levels:
        for index in range(3):
            make_question("numeric", level=level, topics=[f"{level}-{index}"], chapters=[chapters["kv"]])
            # Same topic everywhere: the picker should prefer questions with fresh topics.
            make_question("numeric", level=level, topics=["shared"], chapters=[chapters["kv"]])
    session = start(learner_client, mode="interview", size=8).json()
    assert session["mode"] == "interview" and session["seconds_per_question"] == 120
    picked = session["questions"]
    assert [q["level"] for q in picked] == ["core", "core", "mid", "mid", "senior", "senior", "staff", "staff"]
    topics = [t for q in picked for t in q["topics"]]
    assert topics.count("shared") <= 1 and len(set(topics)) == len(topics)
    sid = session["id"]
    fast = answer(learner_client, sid, {"question": picked[0]["id"], "answer": {"value": 16, "unit": "GiB"}, "duration_ms": 30_000}).json()
    slow = answer(learner_client, sid, {"question": picked[1]["id"], "answer": {"value": 1, "unit": "GiB"}, "duration_ms": 150_000}).json()
    assert (fast["over_time"], slow["over_time"]) == (False, True)
    report = learner_client.get(f"/api/v1/practice/sessions/{sid}/summary/").json()
    assert report["time_used_ms"] == 180_000 and report["over_time"] == 1
    assert report["by_level"] == [{"level": "core", "answered": 2, "correct": 1, "score": 0.5}]
    assert report["strongest_topics"][0]["score"] == 1.0 and report["weakest_topics"][0]["score"] == 0.0


def test_interview_custom_time_per_question(api_client, one_of_each):
    session = start(api_client, mode="interview", seconds_per_question=60, size=4).json()
    assert session["seconds_per_question"] == 60
    assert len(session["questions"]) == 4
    assert len({q["level"] for q in session["questions"]}) == 4


def test_non_ascii_token_is_404_not_500(api_client, one_of_each):
    sid = start(api_client, size=1).json()["id"]
    assert api_client.get(f"/api/v1/practice/sessions/{sid}/", HTTP_X_PRACTICE_TOKEN="é" * 10).status_code == 404


def test_session_endpoints_query_count_is_flat(learner_client, one_of_each, django_assert_max_num_queries):
    session = start(learner_client, size=50).json()
    for question in session["questions"]:
        if question["kind"] == "open":
            answer(learner_client, session["id"], {"question": question["id"], "self_rating": "good"})
        elif question["kind"] == "numeric":
            answer(learner_client, session["id"], {"question": question["id"], "answer": CORRECT["numeric"]})
    with django_assert_max_num_queries(12):
        assert learner_client.get(f"/api/v1/practice/sessions/{session['id']}/summary/").status_code == 200
    with django_assert_max_num_queries(12):
        assert learner_client.get(f"/api/v1/practice/sessions/{session['id']}/").status_code == 200
    with django_assert_max_num_queries(6):
        assert learner_client.get("/api/v1/practice/sessions/").status_code == 200


def test_a_session_shows_its_questions_as_last_published(learner_client, author_client, one_of_each, chapters):
    """Question bodies, candidates and summary facts are cached by content version: an author's edit, a new
    question, an unpublish or a changed topic are seen by the next request, never a stale copy."""
    open_question = one_of_each["open"]
    session = start(learner_client, size=7).json()
    sid = session["id"]
    edited = author_client.patch(f"/api/v1/questions/{open_question.id}/", {"prompt": "Edited **prompt**"}, format="json")
    assert edited.status_code == 200, edited.content
    shown = {q["id"]: q for q in learner_client.get(f"/api/v1/practice/sessions/{sid}/").json()["questions"]}
    assert "<strong>prompt</strong>" in shown[open_question.id]["prompt_html"]
    # A question published after the first session's candidates were read is a candidate for the next one.
    newcomer = make_question("open", topics=["fresh"], chapters=[chapters["kv"]])
    assert start(learner_client, size=1, kind=["open"], topic=["fresh"]).json()["questions"][0]["id"] == newcomer.id
    # Answered, then retagged and unpublished: the summary counts it under its new topic; the session hides it.
    assert answer(learner_client, sid, {"question": open_question.id, "self_rating": "easy"}).status_code == 201
    assert learner_client.get(f"/api/v1/practice/sessions/{sid}/summary/").json()["by_topic"][0]["topic"] == "scheduler"
    retagged = author_client.patch(f"/api/v1/questions/{open_question.id}/", {"topics": ["renamed"], "status": "draft"}, format="json")
    assert retagged.status_code == 200, retagged.content
    summary = learner_client.get(f"/api/v1/practice/sessions/{sid}/summary/").json()
    assert [t["topic"] for t in summary["by_topic"]] == ["renamed"]
    assert open_question.id not in [q["id"] for q in learner_client.get(f"/api/v1/practice/sessions/{sid}/").json()["questions"]]


def test_statements_per_practice_request(learner_client, one_of_each, django_assert_num_queries):
    """Starting a session reads no content once it is cached: it only inserts (the client is signed in without a
    token). An answer locks the session, reads the question, then the answers so far in one statement, and inserts."""
    start(learner_client, size=2, kind=["open", "single_choice"])  # fills the caches
    with django_assert_num_queries(1):
        session = start(learner_client, size=2, kind=["open", "single_choice"]).json()
    open_id = one_of_each["open"].id
    # savepoint (the test's transaction), locked session, question, answers so far, insert, release
    with django_assert_num_queries(6):
        assert answer(learner_client, session["id"], {"question": open_id, "self_rating": "good"}).status_code == 201
