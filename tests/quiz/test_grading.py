"""Server-side checking of every kind through POST /api/v1/questions/<id>/check/."""

import pytest

pytestmark = pytest.mark.django_db


def check(client, question, answer):
    return client.post(f"/api/v1/questions/{question.id}/check/", {"answer": answer}, format="json")


def display_index(client, question, text):
    options = client.get(f"/api/v1/questions/{question.id}/").json()["choices"]["options"]
    return options.index(text)


def test_single_choice_correct_and_wrong(api_client, one_of_each):
    q = one_of_each["single_choice"]
    right = check(api_client, q, {"selected": [display_index(api_client, q, "HBM bandwidth")]})
    assert right.status_code == 200
    body = right.json()
    assert (body["correct"], body["score"]) == (True, 1.0)
    assert "Model answer text" in body["answer_html"]
    assert "HBM bandwidth" in body["explanation"]
    wrong = check(api_client, q, {"selected": [display_index(api_client, q, "PCIe latency")]}).json()
    assert (wrong["correct"], wrong["score"]) == (False, 0.0)
    assert wrong["feedback"]["correct_options"] == [display_index(api_client, q, "HBM bandwidth")]


def test_single_choice_malformed(api_client, one_of_each):
    q = one_of_each["single_choice"]
    for answer in ({"selected": [0, 1]}, {"selected": [7]}, {"selected": "0"}, {"selected": [True]}, {}):
        response = check(api_client, q, answer)
        assert response.status_code == 400, answer
        assert "answer.selected" in response.json()["fields"]


def test_multiple_choice_partial_score_is_share_of_options_classified_right(api_client, one_of_each):
    q = one_of_each["multiple_choice"]
    idx = {text: display_index(api_client, q, text) for text in ("GQA", "FP8 KV cache", "Bigger batch", "Longer context")}
    full = check(api_client, q, {"selected": [idx["GQA"], idx["FP8 KV cache"]]}).json()
    assert (full["correct"], full["score"]) == (True, 1.0)
    # GQA chosen (right), FP8 missed (wrong), the two wrong ones left out (right): 3 of 4.
    partial = check(api_client, q, {"selected": [idx["GQA"]]}).json()
    assert (partial["correct"], partial["score"]) == (False, 0.75)
    # Everything inverted: 0 of 4.
    wrong = check(api_client, q, {"selected": [idx["Bigger batch"], idx["Longer context"]]}).json()
    assert (wrong["correct"], wrong["score"]) == (False, 0.0)
    assert check(api_client, q, {"selected": [4]}).status_code == 400


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ({"value": 16, "unit": "GiB"}, True),
        ({"value": "16 GiB"}, True),
        ({"value": "17179869184 B"}, True),
        ({"value": 17179869184, "unit": "bytes"}, True),
        ({"value": 16384, "unit": "MiB"}, True),
        ({"value": "17.18 GB"}, True),  # 17.18e9 B = 16.0 GiB within 1 %
        ({"value": 16.1, "unit": "GiB"}, True),  # 0.6 % off
        ({"value": "16 GB"}, False),  # 16e9 B = 14.9 GiB, 6.9 % off
        ({"value": 16.2, "unit": "GiB"}, False),  # 1.25 % off
        ({"value": 16}, True),  # no unit: read in the key's unit
    ],
)
def test_numeric_converts_units_of_the_same_dimension(api_client, one_of_each, answer, correct):
    body = check(api_client, one_of_each["numeric"], answer).json()
    assert body["correct"] is correct
    assert body["score"] == (1.0 if correct else 0.0)


@pytest.mark.parametrize(
    ("answer", "field"),
    [
        ({"value": "16 s"}, "answer.unit"),
        ({"value": 16, "unit": "ms"}, "answer.unit"),
        ({"value": 16, "unit": "parsecs"}, "answer.unit"),
        ({"value": "sixteen"}, "answer.value"),
        ({"value": None}, "answer.value"),
        ({"value": True}, "answer.value"),
        ({"value": 10**400}, "answer.value"),
        ({"value": 16, "unit": 3}, "answer.unit"),
    ],
)
def test_numeric_malformed_names_the_field(api_client, one_of_each, answer, field):
    response = check(api_client, one_of_each["numeric"], answer)
    assert response.status_code == 400
    assert field in response.json()["fields"]


def test_numeric_absolute_tolerance_and_time_units(api_client, chapters):
    from .factories import make_question

    q = make_question("numeric", key={"numeric": {"value": 20, "unit": "ms", "tolerance": 2, "tolerance_mode": "absolute"}}, chapters=[chapters["kv"]])
    assert check(api_client, q, {"value": "0.021 s"}).json()["correct"] is True
    assert check(api_client, q, {"value": 22.5, "unit": "ms"}).json()["correct"] is False
    assert check(api_client, q, {"value": "21000 us"}).json()["correct"] is True


def test_ordering_partial_score_is_share_of_adjacent_pairs_in_order(api_client, one_of_each):
    q = one_of_each["ordering"]
    right = check(api_client, q, {"order": ["Tokenize", "Prefill", "Decode", "Detokenize"]}).json()
    assert (right["correct"], right["score"]) == (True, 1.0)
    # Pairs (Tokenize<Prefill) kept, (Prefill<Decode) broken, (Decode<Detokenize) kept: 2 of 3.
    partial = check(api_client, q, {"order": ["Tokenize", "Decode", "Prefill", "Detokenize"]}).json()
    assert partial["correct"] is False
    assert partial["score"] == pytest.approx(2 / 3, abs=1e-4)
    reversed_ = check(api_client, q, {"order": ["Detokenize", "Decode", "Prefill", "Tokenize"]}).json()
    assert reversed_["score"] == 0.0
    assert reversed_["feedback"]["correct_order"] == ["Tokenize", "Prefill", "Decode", "Detokenize"]
    for bad in ({"order": ["Tokenize", "Prefill", "Decode"]}, {"order": ["Tokenize", "Prefill", "Decode", "Decode"]}, {"order": "x"}, {"order": [1, 2, 3, 4]}):
        response = check(api_client, q, bad)
        assert response.status_code == 400
        assert "answer.order" in response.json()["fields"]


def test_categorize_partial_score_is_share_placed_right(api_client, one_of_each):
    q = one_of_each["categorize"]
    correct = {"Prefill of a 4k prompt": "Compute-bound", "Decode at batch 1": "Memory-bound", "Large GEMM": "Compute-bound", "KV cache read": "Memory-bound"}
    assert check(api_client, q, {"placement": correct}).json()["score"] == 1.0
    partial = check(api_client, q, {"placement": {**correct, "Large GEMM": "Memory-bound"}}).json()
    assert (partial["correct"], partial["score"]) == (False, 0.75)
    swapped = {text: ("Memory-bound" if b == "Compute-bound" else "Compute-bound") for text, b in correct.items()}
    assert check(api_client, q, {"placement": swapped}).json()["score"] == 0.0
    missing = check(api_client, q, {"placement": {"Large GEMM": "Compute-bound"}})
    assert missing.status_code == 400 and "answer.placement" in missing.json()["fields"]
    unknown_bin = check(api_client, q, {"placement": {**correct, "Large GEMM": "IO-bound"}})
    assert unknown_bin.status_code == 400
    assert any(name.startswith("answer.placement") for name in unknown_bin.json()["fields"])


def test_matching_partial_score_is_share_matched_right(api_client, one_of_each):
    q = one_of_each["matching"]
    right = {"KV cache full": "Add blocks", "Slow prefill": "Chunk it", "Idle GPUs": "Batch more"}
    assert check(api_client, q, {"matches": right}).json()["correct"] is True
    partial = check(api_client, q, {"matches": {**right, "Slow prefill": "Batch more", "Idle GPUs": "Chunk it"}}).json()
    assert partial["correct"] is False
    assert partial["score"] == pytest.approx(1 / 3, abs=1e-4)
    for bad in ({"matches": {"KV cache full": "Add blocks"}}, {"matches": {**right, "Idle GPUs": "Reboot"}}, {"matches": []}):
        response = check(api_client, q, bad)
        assert response.status_code == 400 and "answer.matches" in response.json()["fields"]


def test_open_question_check_returns_model_answer_without_score(api_client, one_of_each):
    body = api_client.post(f"/api/v1/questions/{one_of_each['open'].id}/check/", {}, format="json").json()
    assert body["score"] is None and body["correct"] is None
    assert "Model answer text" in body["answer_html"]


def test_check_rejects_non_object_answer_and_missing_answer(api_client, one_of_each):
    q = one_of_each["numeric"]
    for payload in ({"answer": [16]}, {"answer": "16 GiB"}, {}):
        response = api_client.post(f"/api/v1/questions/{q.id}/check/", payload, format="json")
        assert response.status_code == 400
        assert "answer" in response.json()["fields"]


def test_check_unknown_or_draft_question_is_404_for_learners(api_client, learner_client, author_client, chapters):
    from .factories import make_question

    draft = make_question("numeric", status="draft", chapters=[chapters["kv"]])
    assert check(api_client, draft, {"value": 16}).status_code == 404
    assert check(learner_client, draft, {"value": 16}).status_code == 404
    assert check(author_client, draft, {"value": 16}).status_code == 200
    assert api_client.post("/api/v1/questions/999999/check/", {"answer": {}}, format="json").status_code == 404
