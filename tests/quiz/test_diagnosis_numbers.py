import json

import pytest

from apps.quiz.models import DiagnosisScenario, NumberToMemorize

pytestmark = pytest.mark.django_db


EVIDENCE = [
    {"key": "queue", "kind": "metrics", "label": "Queue time", "text": "p99 0.01 s\n"},
    {"key": "prompts", "kind": "workload", "label": "Prompt lengths", "text": "p50 8,000 tokens\n"},
]


@pytest.fixture
def scenario(chapters):
    scenario = DiagnosisScenario.objects.create(
        slug="high-ttft-empty-queue", symptom="TTFT is high with an empty queue.", details="Llama-3.1-70B on 4×H100.",
        evidence=EVIDENCE, answer="compute", telling=["queue"], sources=["datasheet"],
        reasoning="Prefill of long prompts is **compute-bound**.",
    )
    scenario.chapters.set([chapters["kv"]])
    return scenario


def test_diagnosis_list_hides_the_answer_and_the_evidence_text(api_client, scenario):
    body = api_client.get("/api/v1/diagnosis/").json()
    assert body["count"] == 1
    item = body["results"][0]
    assert (item["symptom"], item["game"], item["max_questions"]) == ("TTFT is high with an empty queue.", "diagnosis", 5)
    assert [c["value"] for c in item["choices"]] == ["compute", "memory", "communication", "scheduling", "workload"]
    assert item["evidence"] == [{"key": "queue", "kind": "metrics", "label": "Queue time"},
                                {"key": "prompts", "kind": "workload", "label": "Prompt lengths"}]
    text = json.dumps(body)
    assert "compute-bound**" not in text and "reasoning" not in text and '"answer"' not in text
    assert "8,000" not in text and "telling" not in text


def test_diagnosis_unknown_or_draft_is_404(api_client, scenario):
    assert api_client.post("/api/v1/diagnosis/nope/attempts/").status_code == 404
    DiagnosisScenario.objects.filter(pk=scenario.pk).update(status="draft")
    assert api_client.get("/api/v1/diagnosis/").json()["count"] == 0
    assert api_client.post("/api/v1/diagnosis/high-ttft-empty-queue/attempts/").status_code == 404


def test_numbers_list_with_chapters(api_client, chapters):
    number = NumberToMemorize.objects.create(slug="h100-hbm", label="H100 SXM HBM3 bandwidth", value="3.35", unit="TB/s", source="NVIDIA datasheet", derivation="5 stacks")
    number.chapters.set([chapters["kv"]])
    body = api_client.get("/api/v1/numbers/").json()
    assert body["results"] == [{
        "slug": "h100-hbm", "label": "H100 SXM HBM3 bandwidth", "value": "3.35", "unit": "TB/s", "source": "NVIDIA datasheet",
        "derivation": "5 stacks", "chapters": [{"slug": "kv-cache-sizing", "title": "Chapter kv-cache-sizing", "url": "/learn/kv-cache-sizing"}],
    }]


def test_list_query_counts(api_client, scenario, chapters, django_assert_max_num_queries):
    for index in range(5):
        number = NumberToMemorize.objects.create(slug=f"n{index}", label=f"N{index}", value="1", source="s", derivation="d")
        number.chapters.set([chapters["kv"], chapters["tp"]])
    with django_assert_max_num_queries(3):
        assert api_client.get("/api/v1/numbers/").json()["count"] == 5
    with django_assert_max_num_queries(3):
        assert api_client.get("/api/v1/diagnosis/").json()["count"] == 1
