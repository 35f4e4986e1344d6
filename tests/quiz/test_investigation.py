"""The investigation mechanism shared by the diagnosis game and the Kubernetes incident game: the rules (score,
scenario checks) by hand, then the API: start, ask for evidence (at most five), name the cause, saved per user."""

import pytest
from rest_framework.test import APIClient

from apps.quiz.investigation import scenario_errors, score
from apps.quiz.models import Bottleneck, DiagnosisScenario, EvidenceKind, InvestigationAttempt

pytestmark = pytest.mark.django_db

EVIDENCE = [{"key": f"e{n}", "kind": "metrics", "label": f"Evidence {n}", "text": f"value {n}\n"} for n in range(7)]


@pytest.fixture
def scenario():
    return DiagnosisScenario.objects.create(
        slug="empty-queue", symptom="TTFT high.", evidence=EVIDENCE, answer="compute", telling=["e2", "e0"],
        sources=["datasheet"], reasoning="Prefill is **compute**.")


@pytest.fixture
def incident():
    return DiagnosisScenario.objects.create(
        slug="oom", game="k8s-incident", symptom="Restarts.", evidence=EVIDENCE[:2], answer="oom-on-load",
        telling=["e1"], sources=["kubelet"], reasoning="Limit too low.")


# ---------------------------------------------------------------- rules, derived by hand


@pytest.mark.parametrize(("correct", "asked", "expected"), [
    (True, 0, 1.0),    # named from the symptom alone
    (True, 3, 0.7),    # 1 − 3 × 0.1
    (True, 5, 0.5),    # 1 − 5 × 0.1, the least a right answer scores
    (False, 0, 0.0),
    (False, 5, 0.0),
])
def test_score(correct, asked, expected):
    assert score(correct=correct, asked=asked) == expected


def test_score_refuses_more_than_five_questions():
    with pytest.raises(ValueError, match="between 0 and 5"):
        score(correct=True, asked=6)


def test_scenario_errors_name_each_field():
    good = {"causes": Bottleneck.values, "kinds": EvidenceKind.values, "answer": "compute", "evidence": EVIDENCE[:2],
            "telling": ["e1"], "sources": ["s"]}
    assert scenario_errors(**good) == {}
    assert scenario_errors(**{**good, "answer": "oom-on-load"})["answer"] == [
        "must be one of compute, memory, communication, scheduling, workload"]
    assert scenario_errors(**{**good, "telling": ["e9"]}) == {"telling": ["unknown evidence key 'e9'"]}
    assert scenario_errors(**{**good, "telling": []}) == {"telling": ["must list at least one evidence key"]}
    assert scenario_errors(**{**good, "sources": []}) == {"sources": ["must be a list of at least one non-empty string"]}
    twice = [EVIDENCE[0], EVIDENCE[0]]
    assert scenario_errors(**{**good, "evidence": twice, "telling": ["e0"]}) == {"evidence": ["keys must be unique"]}
    bad_kind = [{**EVIDENCE[0], "kind": "rumours"}]
    assert scenario_errors(**{**good, "evidence": bad_kind, "telling": ["e0"]})["evidence"][0].startswith(
        "item 1: kind must be one of events, logs")
    assert scenario_errors(**{**good, "evidence": [{"key": "Bad Key", "kind": "logs", "label": "l", "text": "t"}],
                              "telling": ["Bad Key"]})["evidence"] == ["item 1: key 'Bad Key' is not lowercase-hyphenated"]


# ---------------------------------------------------------------- API


def start(client, slug="empty-queue"):
    response = client.post(f"/api/v1/diagnosis/{slug}/attempts/")
    assert response.status_code == 201, response.json()
    return response.json()


def ask(client, attempt, key, token=None):
    headers = {"HTTP_X_ATTEMPT_TOKEN": token} if token else {}
    return client.post(f"/api/v1/diagnosis/attempts/{attempt['id']}/evidence/", {"evidence": key}, format="json",
                       **headers)


def answer(client, attempt, cause, token=None):
    headers = {"HTTP_X_ATTEMPT_TOKEN": token} if token else {}
    return client.post(f"/api/v1/diagnosis/attempts/{attempt['id']}/answer/", {"answer": cause}, format="json",
                       **headers)


def test_signed_in_investigation_is_scored_and_saved(learner_client, scenario):
    attempt = start(learner_client)
    assert (attempt["token"], attempt["asked"], attempt["remaining"]) == (None, [], 5)
    first = ask(learner_client, attempt, "e2").json()
    assert first == {"item": EVIDENCE[2], "asked": ["e2"], "remaining": 4}
    ask(learner_client, attempt, "e5")
    assert ask(learner_client, attempt, "e2").json()["remaining"] == 3  # asking again for one seen is free
    result = answer(learner_client, attempt, "compute").json()
    # Right after 2 questions: 1 − 2 × 0.1 = 0.8.
    assert (result["correct"], result["score"], result["asked"], result["answer_label"]) == (True, 0.8, 2, "Compute-bound")
    assert result["reasoning_html"] == "<p>Prefill is <strong>compute</strong>.</p>"
    assert [item["key"] for item in result["telling"]] == ["e2", "e0"] and result["telling"][1]["text"] == "value 0\n"
    saved = InvestigationAttempt.objects.get()
    assert (saved.user, saved.asked, saved.answer, saved.score) == (learner_client.user, ["e2", "e5"], "compute", 0.8)
    listed = learner_client.get("/api/v1/diagnosis/attempts/").json()
    assert listed["count"] == 1
    assert {k: listed["results"][0][k] for k in ("scenario", "game", "correct", "score")} == {
        "scenario": "empty-queue", "game": "diagnosis", "correct": True, "score": 0.8}


def test_wrong_cause_scores_zero_and_an_attempt_is_answered_once(learner_client, scenario):
    attempt = start(learner_client)
    result = answer(learner_client, attempt, "memory").json()
    assert (result["correct"], result["score"], result["answer"]) == (False, 0.0, "compute")
    again = answer(learner_client, attempt, "compute")
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    assert ask(learner_client, attempt, "e1").status_code == 409


def test_a_sixth_new_question_is_refused_naming_the_field(learner_client, scenario):
    attempt = start(learner_client)
    for n in range(5):
        assert ask(learner_client, attempt, f"e{n}").status_code == 200
    sixth = ask(learner_client, attempt, "e6")
    assert sixth.status_code == 400 and "evidence" in sixth.json()["fields"]
    assert ask(learner_client, attempt, "e4").status_code == 200  # already seen: still free
    assert answer(learner_client, attempt, "compute").json()["score"] == 0.5


@pytest.mark.parametrize("body", [{}, {"evidence": ""}, {"evidence": ["e1"]}, {"evidence": "nope"}, {"evidence": "x" * 81}])
def test_bad_evidence_requests_name_the_field(learner_client, scenario, body):
    attempt = start(learner_client)
    response = learner_client.post(f"/api/v1/diagnosis/attempts/{attempt['id']}/evidence/", body, format="json")
    assert response.status_code == 400 and "evidence" in response.json()["fields"]


@pytest.mark.parametrize("body", [{}, {"answer": ""}, {"answer": 3}, {"answer": "gpu"}, {"answer": "oom-on-load"}])
def test_bad_answers_name_the_field(learner_client, scenario, body):
    attempt = start(learner_client)
    response = learner_client.post(f"/api/v1/diagnosis/attempts/{attempt['id']}/answer/", body, format="json")
    assert response.status_code == 400 and "answer" in response.json()["fields"]
    assert InvestigationAttempt.objects.get().finished_at is None


def test_each_game_grades_against_its_own_causes(learner_client, incident):
    attempt = start(learner_client, "oom")
    assert answer(learner_client, attempt, "compute").status_code == 400
    result = answer(learner_client, attempt, "oom-on-load").json()
    assert (result["correct"], result["score"]) == (True, 1.0)


def test_anonymous_play_needs_its_token_and_is_on_no_account(api_client, scenario, make_user):
    attempt = start(api_client)
    token = attempt["token"]
    assert token and InvestigationAttempt.objects.get().user is None
    assert ask(api_client, attempt, "e1").status_code == 404
    assert ask(api_client, attempt, "e1", token="0" * 64).status_code == 404
    assert ask(api_client, attempt, "e1", token=token).status_code == 200
    assert answer(api_client, attempt, "compute", token=token).json()["score"] == 0.9
    assert api_client.get("/api/v1/diagnosis/attempts/").status_code == 401


def test_another_learners_attempt_is_not_found(learner_client, scenario, make_user):
    attempt = start(learner_client)
    stranger = APIClient()
    stranger.force_authenticate(make_user("stranger"))
    assert ask(stranger, attempt, "e1").status_code == 404
    assert answer(stranger, attempt, "compute").status_code == 404
    assert stranger.get("/api/v1/diagnosis/attempts/").json()["count"] == 0
    assert stranger.post("/api/v1/diagnosis/attempts/not-a-uuid/answer/", {"answer": "compute"}).status_code == 404


def test_list_filters_by_game(api_client, scenario, incident):
    assert [s["slug"] for s in api_client.get("/api/v1/diagnosis/?game=k8s-incident").json()["results"]] == ["oom"]
    k8s = api_client.get("/api/v1/diagnosis/?game=k8s-incident").json()["results"][0]
    assert k8s["choices"][0] == {"value": "oom-on-load", "label": "Container memory limit below what loading the model needs"}
    assert api_client.get("/api/v1/diagnosis/").json()["count"] == 2
    bad = api_client.get("/api/v1/diagnosis/?game=chess")
    assert bad.status_code == 400 and "game" in bad.json()["fields"]


def test_a_scenario_with_attempts_cannot_be_deleted_from_under_them(learner_client, scenario):
    from django.db.models import ProtectedError

    start(learner_client)
    with pytest.raises(ProtectedError):
        scenario.delete()
