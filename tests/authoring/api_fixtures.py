"""Fixtures of the authoring API tests: a small curriculum with one draft of every content type, and clients for
the four roles. Import them into a test module (pytest finds fixtures by name in the module)."""

from types import SimpleNamespace

import pytest

API = "/api/v1"

MODEL = {
    "slug": "tiny-gqa", "name": "Tiny GQA", "hf_id": "org/tiny-gqa", "num_layers": 32, "hidden_size": 4096,
    "num_attention_heads": 32, "num_kv_heads": 8, "head_dim": 128, "intermediate_size": 14336, "vocab_size": 128256,
    "max_position_embeddings": 131072, "tie_word_embeddings": False, "attention": "gqa", "total_params": 8.03e9,
    "active_params": 8.03e9, "source": "config.json",
}
GPU_SPEC = {
    "slug": "tiny-gpu", "name": "Tiny GPU", "vendor": "nvidia", "memory_bytes": 80e9, "hbm_bandwidth_bytes_per_s": 3.35e12,
    "bf16_dense_flops": 989.4e12, "fp8_dense_flops": 1978.9e12, "int8_dense_ops": 1978.9e12,
    "interconnect_bandwidth_bytes_per_s": 900e9, "price_per_hour_usd": 2.99, "source": "datasheet",
}
CHOICE = [{"text": "HBM bandwidth", "correct": True}, {"text": "FLOPs", "correct": False}, {"text": "PCIe", "correct": False}]


@pytest.fixture
def content(db, fast_passwords):
    """Published: part p1, chapters ch-one <- ch-two, term kv-cache, question q-pub, model, GPU.
    Drafts: chapter ch-draft (after ch-two, needs it), term draft-term, question q-draft, model and GPU."""
    from apps.courses.models import Chapter, Part
    from apps.courses.services import glossary_entries, render_chapter_body
    from apps.glossary.models import Term
    from apps.quiz.models import DiagnosisScenario, NumberToMemorize, Question, Topic
    from apps.simulators.models import GPU, ModelConfig

    part = Part.objects.create(slug="p1", title="Part one", order=1)
    one = Chapter.objects.create(slug="ch-one", part=part, order=1, title="Chapter one", summary="First.",
                                 body="## One\n\nThe KV cache grows.")
    two = Chapter.objects.create(slug="ch-two", part=part, order=2, title="Chapter two", summary="Second.",
                                 body="## Two\n\nBatching.")
    two.prerequisites.set([one])
    draft = Chapter.objects.create(slug="ch-draft", part=part, order=3, title="Zanzibar secret chapter",
                                   summary="Zanzibar.", body="## Zanzibar\n\nZanzibar text.", status="draft")
    draft.prerequisites.set([two])
    term = Term.objects.create(slug="kv-cache", term="KV cache", definition="Stored keys and values.")
    draft_term = Term.objects.create(slug="draft-term", term="Quokka buffer", definition="Quokka.", status="draft")
    term.related.set([draft_term])
    one.glossary_terms.set([term, draft_term])
    one.body_html = render_chapter_body(one.body, glossary_entries())
    one.save()
    topic = Topic.objects.create(slug="memory")
    question = Question.objects.create(slug="q-pub", kind="single_choice", level="core", prompt="Which limits decode?",
                                       answer="Bandwidth.", key={"options": CHOICE})
    draft_question = Question.objects.create(slug="q-draft", kind="single_choice", level="core", status="draft",
                                             prompt="Wombat question?", answer="Wombat.", key={"options": CHOICE})
    for q in (question, draft_question):
        q.chapters.set([one, draft])
        q.topics.set([topic])
    model = ModelConfig.objects.create(**MODEL)
    draft_model = ModelConfig.objects.create(**{**MODEL, "slug": "draft-model", "name": "Draft model"}, status="draft")
    gpu = GPU.objects.create(**GPU_SPEC)
    draft_gpu = GPU.objects.create(**{**GPU_SPEC, "slug": "draft-gpu", "name": "Draft GPU"}, status="draft")
    scenario = DiagnosisScenario.objects.create(slug="draft-scenario", symptom="s", answer="memory", reasoning="r",
                                                status="draft")
    number = NumberToMemorize.objects.create(slug="draft-number", label="n", value="1", source="s", derivation="d",
                                             status="draft")
    return SimpleNamespace(part=part, one=one, two=two, draft=draft, term=term, draft_term=draft_term,
                           question=question, draft_question=draft_question, model=model, draft_model=draft_model,
                           gpu=gpu, draft_gpu=draft_gpu, scenario=scenario, number=number, topic=topic)


@pytest.fixture
def fast_passwords(settings):
    """Users are made in almost every test here; the production hasher would dominate the run time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def superuser_client(make_user):
    from rest_framework.test import APIClient

    user = make_user("root")
    user.is_superuser = user.is_staff = True
    user.save()
    client = APIClient()
    client.force_authenticate(user)
    client.user = user
    return client


@pytest.fixture
def client_for(request, fast_passwords):
    """The APIClient of a role, made on first use: anonymous, learner, author or admin."""
    names = {"anonymous": "api_client", "learner": "learner_client", "author": "author_client", "admin": "superuser_client"}
    return lambda role: request.getfixturevalue(names[role])
