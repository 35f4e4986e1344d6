"""Design exercises through the API: an answer graded by the simulators (does not fit → 0 with the fix; the best
answer → 100; meeting the SLO at twice the best cost → in between; deterministic), attempts kept per learner, the
rationale self-rated, and bad input named."""

import pytest
from django.contrib.auth.models import AnonymousUser

from apps.exercises import grading
from apps.exercises.models import DesignAttempt, DesignExercise

pytestmark = pytest.mark.django_db

# Llama 3.1 70B (config.json: hidden 8192, 80 layers, 64 heads, 8 KV heads, intermediate 28672, vocab 128256, untied
# embeddings), by hand: per layer q and o 2 × 8192² = 134,217,728; k and v 2 × 8192 × 1024 = 16,777,216; MLP
# 3 × 8192 × 28672 = 704,643,072; two norms 16,384: 855,654,400 × 80 = 68,452,352,000; embeddings and head
# 2 × 128256 × 8192 = 2,101,346,304; final norm 8192. 70,553,706,496 parameters × 2 bytes = 141.1 GB in BF16: more
# than one 80 GB H100 holds, and 70.55 GB per GPU at TP 2.
LLAMA_70B_PARAMS = 80 * (2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192) + 2 * 128256 * 8192 + 8192


@pytest.fixture
def catalog(db):
    from apps.core.content import FIXTURES_DIR, LoadContext
    from apps.simulators.content import load_catalog

    ctx = LoadContext(root=FIXTURES_DIR)
    load_catalog(ctx)
    assert not ctx.errors


@pytest.fixture
def exercise(catalog):
    """70B chat at 2 requests/s of fixed 1,000 + 200 tokens, p99 TTFT 1 s and TPOT 50 ms, on H100 or H200."""
    ex = DesignExercise.objects.create(
        slug="chat-70b", title="Chat on 70B", category="chat", level="senior", brief="Serve **it**.",
        model_slug="llama-3.1-70b",
        traffic={"arrival_rate_per_s": 2.0, "num_requests": 120, "prompt_tokens": 1000, "output_tokens": 200},
        slo={"ttft_s": 1.0, "tpot_s": 0.05},
        constraints={"gpus": ["h100-sxm", "h200"], "max_gpus": 8, "max_gpus_per_replica": 8},
        search={"gpu": ["h100-sxm", "h200"], "tensor_parallel": [2, 4], "weight_dtype": ["bf16", "fp8"]},
        key_points=["Weights are 141 GB in BF16.", "FP8 halves them.", "TPOT is bandwidth bound."], sources=["x"])
    best = grading.search_best(ex, user=AnonymousUser())
    ex.best = {"deployment": best["deployment"]}
    ex.save()
    return ex


def attempt(client, slug: str, deployment: dict, rationale: str = ""):
    return client.post(f"/api/v1/design-exercises/{slug}/attempts/", {"deployment": deployment, "rationale": rationale},
                       format="json")


def test_weights_that_do_not_fit_score_zero_with_the_fix(learner_client, exercise):
    assert LLAMA_70B_PARAMS == 70_553_706_496
    response = attempt(learner_client, exercise.slug, {"gpu": "h100-sxm", "tensor_parallel": 1})
    assert response.status_code == 201, response.content
    grade = response.json()["grade"]
    assert grade["verdict"] == "does_not_fit" and grade["score"] == 0 and grade["metrics"] is None
    assert "leaves no room for a KV cache" in grade["headline"]
    per_gpu_at_tp2 = LLAMA_70B_PARAMS * 2 / 2 / 1e9
    assert grade["fix"].startswith("Try tensor parallel 2:") and f"{per_gpu_at_tp2:.1f} GB of weights per GPU" in grade["fix"]


def test_the_best_answer_scores_full_marks_and_twice_its_cost_scores_between(learner_client, exercise):
    best = exercise.best["deployment"]
    top = attempt(learner_client, exercise.slug, best).json()["grade"]
    assert top["verdict"] == "meets_slo" and top["score"] == 100 and top["differences"] == []
    # Twice the replicas: twice the GPUs and dollars an hour for the same traffic, so about twice the cost per token.
    double = attempt(learner_client, exercise.slug, {**best, "replicas": 2 * best["replicas"]}).json()["grade"]
    assert double["verdict"] == "meets_slo"
    assert double["cost_ratio"] == pytest.approx(2.0, rel=0.03)
    assert double["score"] == 60 + round(40 / double["cost_ratio"]) and 60 < double["score"] < 100
    assert double["differences"] == [f"replicas: yours {2 * best['replicas']}, best {best['replicas']}"]


def test_an_answer_that_misses_the_slo_says_what_binds(learner_client, exercise):
    # One sequence at a time: a request's 200 tokens take 200 decode steps of at least ~10 ms each (70 GB of FP8
    # weights per step over 4.8 TB/s on an H200 pair is 7 ms alone), so at least 2 s per request against an arrival
    # every 0.5 s: the queue grows and p99 TTFT runs far past 1 s while TPOT stays low.
    deployment = {"gpu": "h200", "tensor_parallel": 2, "weight_dtype": "fp8", "kv_dtype": "fp8", "max_num_seqs": 1}
    grade = attempt(learner_client, exercise.slug, deployment).json()["grade"]
    assert grade["verdict"] == "misses_slo" and grade["score"] == grading.RUNS_POINTS
    assert grade["binding"]["constraint"] == "ttft" and grade["binding"]["ratio"] > 5
    assert grade["metrics"]["tpot_p99_s"] < exercise.slo["tpot_s"]
    assert grade["headline"].startswith("Runs, but misses the SLO: p99 TTFT")


def test_the_grade_is_deterministic(learner_client, exercise):
    deployment = {"gpu": "h200", "tensor_parallel": 2, "weight_dtype": "fp8", "kv_dtype": "fp8"}
    first = attempt(learner_client, exercise.slug, deployment).json()["grade"]
    second = attempt(learner_client, exercise.slug, deployment).json()["grade"]
    assert first == second and first["metrics"]["completed"] == 120


def test_outside_the_constraints_scores_zero_naming_them(learner_client, exercise):
    grade = attempt(learner_client, exercise.slug, {"gpu": "b200", "tensor_parallel": 8, "replicas": 2}).json()["grade"]
    assert grade["verdict"] == "outside_constraints" and grade["score"] == 0
    assert {p["field"] for p in grade["problems"]} == {"gpu", "replicas"}
    assert "16 GPUs in all; at most 8" in grade["headline"]


def test_a_split_counts_each_pool_at_its_own_tensor_parallelism(learner_client, exercise):
    """3 prefill replicas × TP 2 + 1 decode replica × TP 4 = 6 + 4 = 10 GPUs: over the 8 on offer, where the same
    pools at the point's TP 2 would be (3 + 1) × 2 = 8."""
    split = {"prefill_replicas": 3, "decode_replicas": 1, "decode_tensor_parallel": 4}
    grade = attempt(learner_client, exercise.slug, {"gpu": "h200", "tensor_parallel": 2, "weight_dtype": "fp8",
                                                    "disaggregation": split}).json()["grade"]
    assert grade["verdict"] == "outside_constraints" and "10 GPUs in all; at most 8" in grade["headline"]
    fits = attempt(learner_client, exercise.slug, {"gpu": "h200", "tensor_parallel": 2, "weight_dtype": "fp8",
                                                   "disaggregation": {**split, "prefill_replicas": 2}}).json()["grade"]
    assert fits["verdict"] != "outside_constraints" and fits["gpus"] == 2 * 2 + 1 * 4
    assert fits["summary"].startswith("2 prefill × TP 2 + 1 decode × TP 4 replicas on NVIDIA H200")


def test_attempts_are_kept_per_learner_and_the_rationale_is_self_rated(learner_client, make_user, api_client, exercise):
    created = attempt(learner_client, exercise.slug, exercise.best["deployment"], "FP8 weights fit one pair.").json()
    assert created["id"] and created["key_points"] == exercise.key_points and created["rationale_score"] is None
    url = f"/api/v1/design-exercises/{exercise.slug}/attempts/{created['id']}/"
    rated = learner_client.patch(url, {"key_points_met": [2, 0, 0]}, format="json").json()
    assert rated["key_points_met"] == [0, 2] and rated["rationale_score"] == pytest.approx(2 / 3, abs=1e-3)
    assert learner_client.get(f"/api/v1/design-exercises/{exercise.slug}/attempts/").json()[0]["id"] == created["id"]
    listed = learner_client.get("/api/v1/design-exercises/").json()["results"]
    assert listed[0]["best_score"] == 100
    other = make_user("other")
    api_client.force_authenticate(other)
    assert api_client.get(url).status_code == 404
    assert api_client.patch(url, {"key_points_met": []}, format="json").status_code == 404
    assert api_client.get(f"/api/v1/design-exercises/{exercise.slug}/attempts/").json() == []


def test_a_visitor_is_graded_and_nothing_is_saved(api_client, exercise):
    response = attempt(api_client, exercise.slug, exercise.best["deployment"])
    assert response.status_code == 200 and response.json()["id"] is None and response.json()["score"] == 100
    assert DesignAttempt.objects.count() == 0
    assert api_client.get(f"/api/v1/design-exercises/{exercise.slug}/attempts/").status_code == 401


@pytest.mark.parametrize("body, field", [
    ({"deployment": {"gpu": "h200", "tensor_paralel": 2}}, "deployment.tensor_paralel"),
    ({"deployment": {"gpu": "no-such-gpu"}}, "deployment.gpu"),
    ({"deployment": {"gpu": "h200", "tensor_parallel": 3}}, "deployment.tensor_parallel"),
    ({"deployment": {"gpu": "h200", "replicas": 0}}, "deployment.replicas"),
    ({"deployment": {"gpu": "h200", "weight_dtype": "fp2"}}, "deployment.weight_dtype"),
    ({"deployment": {"gpu": "h200", "disaggregation": {"prefill_replicas": 1}}}, "deployment.disaggregation.decode_replicas"),
    ({"deployment": {"gpu": "h200"}, "rationale": "x" * 5001}, "rationale"),
    ({"deployment": {"gpu": "h200"}, "seed": 3}, "seed"),
    ({}, "deployment"),
    # 120 requests × 200 tokens at one sequence per step: 24,000 steps is within the caps; 16 tokens per step
    # without chunked prefill cannot take a 1,000-token prompt.
    ({"deployment": {"gpu": "h200", "tensor_parallel": 2, "weight_dtype": "fp8", "max_num_batched_tokens": 16,
                     "chunked_prefill": False}}, None),
])
def test_bad_input_is_named(learner_client, exercise, body, field):
    response = learner_client.post(f"/api/v1/design-exercises/{exercise.slug}/attempts/", body, format="json")
    if field is None:  # an answer that cannot run at all is a verdict, not an error
        assert response.status_code == 201 and response.json()["grade"]["verdict"] == "does_not_fit"
        return
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]
    assert DesignAttempt.objects.count() == 0


def test_a_deployment_too_slow_to_simulate_is_refused_not_graded(learner_client, catalog):
    DesignExercise.objects.create(
        slug="long", title="Long", category="reasoning", level="staff", brief="b", model_slug="llama-3.1-8b",
        traffic={"arrival_rate_per_s": 5.0, "num_requests": 400, "prompt_tokens": 200, "output_tokens": 400},
        slo={"ttft_s": 1.0, "tpot_s": 0.05}, constraints={"gpus": ["h100-sxm"], "max_gpus": 8},
        search={"gpu": ["h100-sxm"]}, key_points=["a", "b"], sources=["x"])
    # One sequence a step: 400 × 400 = 160,000 output tokens need 160,000 steps, past the 120,000 a grade may run.
    response = attempt(learner_client, "long", {"gpu": "h100-sxm", "max_num_seqs": 1})
    assert response.status_code == 400 and "deployment.max_num_seqs" in response.json()["fields"]
    assert "160,000 engine steps" in response.json()["detail"]


def test_rating_names_a_key_point_that_does_not_exist(learner_client, exercise):
    created = attempt(learner_client, exercise.slug, exercise.best["deployment"]).json()
    url = f"/api/v1/design-exercises/{exercise.slug}/attempts/{created['id']}/"
    for body in ({"key_points_met": [3]}, {"key_points_met": "0"}, {"key_points_met": [0], "score": 100}):
        response = learner_client.patch(url, body, format="json")
        assert response.status_code == 400, body
    assert learner_client.get(url).json()["key_points_met"] is None


def test_lists_filter_and_missing_exercises(api_client, exercise):
    assert api_client.get("/api/v1/design-exercises/?category=chat").json()["count"] == 1
    assert api_client.get("/api/v1/design-exercises/?category=moe").json()["count"] == 0
    assert api_client.get("/api/v1/design-exercises/?category=").status_code == 400
    assert api_client.get("/api/v1/design-exercises/?category=nope").status_code == 400
    detail = api_client.get(f"/api/v1/design-exercises/{exercise.slug}/").json()
    assert detail["brief_html"].strip() == "<p>Serve <strong>it</strong>.</p>" and detail["key_point_count"] == 3
    assert "key_points" not in detail and "best" not in detail
    assert api_client.get("/api/v1/design-exercises/nope/").status_code == 404
    assert attempt(api_client, "nope", {"gpu": "h200"}).status_code == 404
    assert api_client.get("/practice/design/nope").status_code == 404
    assert api_client.get(f"/practice/design/{exercise.slug}").status_code == 200
