"""Interview scoring: a late answer keeps its verdict but does not score in full; a topic is weak or strong, not both."""

import pytest

from apps.quiz.services import LATE_SCORE_FACTOR

from .factories import make_question

pytestmark = pytest.mark.django_db


def start(client, **payload):
    return client.post("/api/v1/practice/sessions/", payload, format="json").json()


def answer(client, session_id, payload):
    return client.post(f"/api/v1/practice/sessions/{session_id}/answers/", payload, format="json").json()


def test_a_late_correct_answer_does_not_score_full(learner_client, chapters):
    for level in ("core", "mid"):
        make_question("numeric", level=level, topics=[f"{level}-topic"], chapters=[chapters["kv"]])
    session = start(learner_client, mode="interview", size=2, seconds_per_question=60)
    first, second = session["questions"]
    on_time = answer(learner_client, session["id"], {"question": first["id"], "answer": {"value": "16 GiB"}, "duration_ms": 59_000})
    late = answer(learner_client, session["id"], {"question": second["id"], "answer": {"value": "16 GiB"}, "duration_ms": 61_000})
    assert (on_time["correct"], on_time["score"], on_time["over_time"]) == (True, 1.0, False)
    assert (late["correct"], late["score"], late["over_time"]) == (True, LATE_SCORE_FACTOR, True)
    assert late["score"] < 1.0
    report = learner_client.get(f"/api/v1/practice/sessions/{session['id']}/summary/").json()
    assert report["over_time"] == 1 and report["correct"] == 2
    assert report["score"] == pytest.approx((1.0 + LATE_SCORE_FACTOR) / 2)
    assert {t["topic"]: t["score"] for t in report["by_topic"]} == {"core-topic": 1.0, "mid-topic": LATE_SCORE_FACTOR}


def test_late_self_rated_answer_is_halved_and_practice_mode_has_no_clock(learner_client, chapters):
    make_question("open", topics=["open-topic"], chapters=[chapters["kv"]])
    interview = start(learner_client, mode="interview", size=1, seconds_per_question=30)
    late = answer(learner_client, interview["id"], {"question": interview["questions"][0]["id"], "self_rating": "easy", "duration_ms": 31_000})
    assert (late["score"], late["over_time"]) == (0.5, True)
    practice = start(learner_client, size=1)
    slow = answer(learner_client, practice["id"], {"question": practice["questions"][0]["id"], "self_rating": "easy", "duration_ms": 3_600_000})
    assert (slow["score"], slow["over_time"]) == (1.0, False)


def test_no_topic_is_both_weakest_and_strongest(learner_client, chapters):
    make_question("numeric", topics=["alpha"], chapters=[chapters["kv"]])
    make_question("numeric", level="mid", topics=["beta"], chapters=[chapters["kv"]])
    session = start(learner_client, mode="interview", size=2)
    right, wrong = session["questions"]
    answer(learner_client, session["id"], {"question": right["id"], "answer": {"value": "16 GiB"}, "duration_ms": 1_000})
    answer(learner_client, session["id"], {"question": wrong["id"], "answer": {"value": "1 GiB"}, "duration_ms": 1_000})
    report = learner_client.get(f"/api/v1/practice/sessions/{session['id']}/summary/").json()
    weakest = [t["topic"] for t in report["weakest_topics"]]
    strongest = [t["topic"] for t in report["strongest_topics"]]
    assert not set(weakest) & set(strongest)
    assert len(weakest) == 1 and len(strongest) == 1 and weakest != strongest


@pytest.mark.parametrize(("value", "weakest", "strongest"), [("16 GiB", [], ["alpha"]), ("1 GiB", ["alpha"], [])])
def test_a_single_topic_is_listed_once(learner_client, chapters, value, weakest, strongest):
    make_question("numeric", topics=["alpha"], chapters=[chapters["kv"]])
    session = start(learner_client, mode="interview", size=1)
    answer(learner_client, session["id"], {"question": session["questions"][0]["id"], "answer": {"value": value}, "duration_ms": 1_000})
    report = learner_client.get(f"/api/v1/practice/sessions/{session['id']}/summary/").json()
    assert [t["topic"] for t in report["weakest_topics"]] == weakest
    assert [t["topic"] for t in report["strongest_topics"]] == strongest


def test_a_format_tag_is_never_named_a_weak_or_strong_topic(learner_client, chapters):
    """"drag-and-drop" says how a check is asked, not what it is about: it is scored, not offered as a topic to study."""
    make_question("numeric", topics=["alpha", "drag-and-drop"], chapters=[chapters["kv"]])
    make_question("numeric", level="mid", topics=["beta", "drag-and-drop"], chapters=[chapters["kv"]])
    session = start(learner_client, mode="interview", size=2)
    right, wrong = session["questions"]
    answer(learner_client, session["id"], {"question": right["id"], "answer": {"value": "16 GiB"}, "duration_ms": 1_000})
    answer(learner_client, session["id"], {"question": wrong["id"], "answer": {"value": "1 GiB"}, "duration_ms": 1_000})
    report = learner_client.get(f"/api/v1/practice/sessions/{session['id']}/summary/").json()
    assert "drag-and-drop" in {t["topic"] for t in report["by_topic"]}
    named = {t["topic"] for t in report["weakest_topics"] + report["strongest_topics"]}
    assert named == {"alpha", "beta"}
