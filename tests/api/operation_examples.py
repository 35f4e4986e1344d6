"""One valid request and one typical bad request for every operation of the OpenAPI schema, keyed by operationId
(tests/api/test_contract.py sends them and checks the answers against the schema).

Adding an endpoint? Add its operationId to EXAMPLES below: `Example(...)` with the good request (path parameters,
query, body, who sends it, and any setup through `Ctx`) and `bad=Bad(...)` with a request that must get a 4xx.
Values may be callables taking the Ctx, for objects the test creates (a card, a session, a sweep).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.utils import timezone

Value = Any  # a value, or a callable taking the Ctx and returning one


def _plan_body() -> dict:
    return {"interview_date": (timezone.now().date() + timedelta(days=14)).isoformat(),
            "minutes_per_day": 45, "days_off": [6], "level": "mid", "parts": []}
MISSING = "no-such-slug-anywhere"


@dataclass(frozen=True)
class Bad:
    """A typical bad request: anything not given is the good request's. `who` may also make it bad (anonymous)."""

    path: Value = None
    query: Value = None
    body: Value = None
    who: str | None = None
    method: str | None = None
    status: int | None = None  # the expected 4xx; any 4xx when None


@dataclass(frozen=True)
class Example:
    bad: Bad
    path: Value = field(default_factory=dict)
    query: Value = field(default_factory=dict)
    body: Value = None
    who: str = "learner"  # anonymous, learner or author
    headers: Value = field(default_factory=dict)
    status: int | None = None  # the expected 2xx; the one documented when None
    setup: Callable[[Ctx], None] | None = None  # run before the good request


class Ctx:
    """What an example may need: the signed-in user's client and objects made on first use."""

    def __init__(self, client, user, capture_on_commit, settings, monkeypatch):
        self.client, self.user = client, user
        self._capture, self._settings, self.monkeypatch = capture_on_commit, settings, monkeypatch
        self._made: dict[str, Any] = {}

    def once(self, name: str, make: Callable[[], Any]) -> Any:
        if name not in self._made:
            self._made[name] = make()
        return self._made[name]

    def ok(self, method: str, path: str, body=None) -> dict:
        response = getattr(self.client, method)(path, body, format="json")
        assert response.status_code < 300, (path, response.status_code)
        return json.loads(b"".join(response.streaming_content) if response.streaming else response.content)

    # --- content (the real fixtures are loaded for the whole module) ---------------------------------------------
    def chapter(self) -> str:
        from apps.courses.models import Chapter

        return Chapter.objects.published().order_by("part__order", "order").first().slug

    def term(self) -> str:
        from apps.glossary.models import Term

        return Term.objects.published().order_by("slug").first().slug

    def question(self, kind: str = "numeric") -> int:
        from apps.quiz.models import Question

        return Question.objects.published().filter(kind=kind).order_by("slug").first().id

    def numeric_answer(self) -> dict:
        from apps.quiz.models import Question

        spec = Question.objects.get(id=self.question()).key["numeric"]
        return {"value": spec["value"], "unit": spec["unit"]}

    def scenario(self) -> str:
        from apps.quiz.models import DiagnosisScenario

        return DiagnosisScenario.objects.published().order_by("slug").first().slug

    def attempt(self) -> str:
        return self.once("attempt", lambda: self.ok("post", f"/api/v1/diagnosis/{self.scenario()}/attempts/")["id"])

    def evidence_key(self) -> str:
        from apps.quiz.models import DiagnosisScenario

        return DiagnosisScenario.objects.get(slug=self.scenario()).evidence[0]["key"]

    def cause(self) -> str:
        from apps.quiz.models import GAME_CAUSES, DiagnosisScenario

        return GAME_CAUSES[DiagnosisScenario.objects.get(slug=self.scenario()).game].values[0]

    def exercise(self) -> str:
        from apps.exercises.models import DesignExercise

        return DesignExercise.objects.published().order_by("slug").first().slug

    def quick_deployment(self) -> dict:
        """The exercise's first GPU at TP 1 in BF16: graded in milliseconds (most exercises' models do not fit)."""
        from apps.exercises.models import DesignExercise

        return {"gpu": DesignExercise.objects.get(slug=self.exercise()).constraints["gpus"][0], "tensor_parallel": 1}

    def design_attempt(self) -> int:
        return self.once("design_attempt", lambda: self.ok(
            "post", f"/api/v1/design-exercises/{self.exercise()}/attempts/", {"deployment": self.quick_deployment()})["id"])

    # --- the learner's own objects -----------------------------------------------------------------------------
    def chapter_deck(self) -> str:
        """The smallest chapter deck with cards."""
        decks = self.ok("get", "/api/v1/flashcards/decks/")
        return min((d for d in decks if d["total"] > 0 and d["kind"] == "chapter"), key=lambda d: d["total"])["slug"]

    def card(self) -> int:
        def make():
            self.ok("post", f"/api/v1/flashcards/decks/{self.chapter_deck()}/add/")
            return self.ok("get", "/api/v1/flashcards/due/?limit=1")["cards"][0]["card_id"]

        return self.once("card", make)

    def reviewed_card(self) -> int:
        def make():
            card = self.card()
            self.ok("post", f"/api/v1/flashcards/{card}/review/", {"rating": 3, "review_id": str(uuid.uuid4())})
            return card

        return self.once("reviewed", make)

    def own_card(self) -> int:
        return self.once("own_card", lambda: self.ok("post", "/api/v1/flashcards/own/", OWN_CARD)["card_id"])

    def anki_deck_card(self) -> int:
        """The learner's own card, as if imported from the Anki deck "Interview::Serving"."""
        from apps.flashcards.models import Card, OwnNote

        card = self.own_card()
        note = Card.objects.filter(pk=card).values("source_id")
        assert OwnNote.objects.filter(user=self.user, pk__in=note).update(anki_deck="Interview::Serving") == 1
        return card

    def image(self) -> int:
        def make():
            response = self.client.post("/api/v1/flashcards/images/", PNG_1X1, content_type="image/png")
            assert response.status_code == 201, response.content[:500]
            return response.json()["id"]

        return self.once("image", make)

    def numeric_card(self) -> int:
        """The card of a numeric question, in the learner's collection."""

        def make():
            from apps.flashcards.models import Card

            question = self.question()
            self.ok("post", f"/api/v1/flashcards/decks/chapter-{self.chapter_of(question)}/add/")
            return Card.objects.get(source_type="question", source_id=question).pk

        return self.once("numeric_card", make)

    def numeric_typed_answer(self) -> dict:
        answer = self.numeric_answer()
        return {"answer": f"{answer['value']} {answer['unit']}".strip()}

    def preset(self) -> int:
        return self.once("preset", lambda: self.ok("post", "/api/v1/flashcards/presets/", PRESET)["id"])

    def session(self) -> str:
        return self.once("session", lambda: self.ok("post", "/api/v1/practice/sessions/", {
            "chapter": [self.chapter_of(self.question())], "kind": ["numeric"], "size": 1})["id"])

    def chapter_of(self, question_id: int) -> str:
        from apps.quiz.models import Question

        return Question.objects.get(id=question_id).chapters.order_by("slug").first().slug

    def answered_session(self) -> str:
        def make():
            session = self.session()
            question = self.ok("get", f"/api/v1/practice/sessions/{session}/")["questions"][0]["id"]
            self.ok("post", f"/api/v1/practice/sessions/{session}/answers/",
                    {"question": question, "answer": self.numeric_answer_of(question)})
            return session

        return self.once("answered", make)

    def numeric_answer_of(self, question_id: int) -> dict:
        from apps.quiz.models import Question

        spec = Question.objects.get(id=question_id).key["numeric"]
        return {"value": spec["value"], "unit": spec["unit"]}

    def optimization(self) -> str:
        def make():
            from fsrs import Scheduler

            from apps.flashcards.models import JobStatus, OptimizationJob

            scores = {"log_loss": 0.35, "rmse_bins": 0.04}
            return str(OptimizationJob.objects.create(
                user=self.user, status=JobStatus.DONE, review_count=640, finished_at=timezone.now(),
                parameters=list(Scheduler().parameters),
                metrics={"train_items": 500, "test_items": 120, "before": scores, "after": scores}).id)

        return self.once("optimization", make)

    def sweep(self) -> str:
        """A finished two-stage sweep (18 points screened, 16 simulated), run in this process."""

        def make():
            self._settings.CELERY_TASK_ALWAYS_EAGER = True
            grid = {"max_num_seqs": [8, 16, 32], "max_num_batched_tokens": [1024, 2048, 4096, 8192, 16384, 32768]}
            with self._capture(execute=True):
                return self.ok("post", "/api/v1/simulators/sweeps/", {**SWEEP, "grid": grid})["id"]

        return self.once("sweep", make)

    def queued_sweep(self) -> str:
        from apps.simulators import sweeps

        return str(sweeps.sweep_job_create(user=self.user, request={**SWEEP, "grid": {"max_num_seqs": [8, 16]},
                                                                    "seed": 0}).id)

    def engine_job(self) -> str:
        """A background simulation of the learner's (queued: no worker runs in the contract tests)."""
        from apps.simulators import engine_jobs

        return self.once("engine_job", lambda: str(engine_jobs.engine_job_create(
            user=self.user, params={**MODEL_GPU, "workload": WORKLOAD}).id))

    def import_job(self) -> str:
        """An import job of the learner's (queued: no worker runs in the contract tests)."""
        def make():
            response = self.client.post("/api/v1/flashcards/imports/?format=apkg", self.anki_package(),
                                        content_type="application/octet-stream")
            assert response.status_code == 202, response.content[:500]
            return response.json()["id"]

        return self.once("import_job", make)

    def export_job(self) -> str:
        """A finished export job of the learner's (run here, as a worker would: no worker runs in the contract tests)."""
        def make():
            from apps.flashcards.interchange import export_jobs

            self.reviewed_card()
            job_id = self.ok("post", "/api/v1/flashcards/exports/", {"format": "json"})["id"]
            export_jobs.export_job_run(job_id=job_id)
            return job_id

        return self.once("export_job", make)

    def anki_package(self) -> bytes:
        """Our own .apkg export of a reviewed card: an Anki package the importer takes."""
        self.reviewed_card()
        response = self.client.get("/api/v1/flashcards/export/?format=apkg")
        assert response.status_code == 200, response.content[:500]
        return response.content

    # --- authored objects (an author's client) -------------------------------------------------------------------
    def draft_chapter(self) -> str:
        return self.once("draft_chapter", lambda: self.ok("post", "/api/v1/chapters/", new_chapter(self))["slug"])

    def draft_term(self) -> str:
        return self.once("draft_term", lambda: self.ok("post", "/api/v1/glossary/", NEW_TERM)["slug"])

    def draft_question(self) -> int:
        return self.once("draft_question", lambda: self.ok("post", "/api/v1/questions/", new_question(self))["id"])

    def draft_model(self) -> str:
        return self.once("draft_model", lambda: self.ok("post", "/api/v1/simulators/models/", NEW_MODEL)["slug"])

    def draft_gpu(self) -> str:
        return self.once("draft_gpu", lambda: self.ok("post", "/api/v1/simulators/gpus/", NEW_GPU)["slug"])


def new_chapter(ctx: Ctx) -> dict:
    from apps.courses.models import Part

    return {"slug": "contract-chapter", "title": "Contract chapter", "part": Part.objects.order_by("order").first().slug,
            "order": 99, "summary": "A chapter written by the contract test.", "body": "## One\n\nText.\n",
            "sources": ["Kwon et al., PagedAttention (SOSP 2023), §4.5"]}


def new_question(ctx: Ctx) -> dict:
    return {"slug": "contract-question", "kind": "numeric", "level": "core", "chapters": [ctx.chapter()],
            "prompt": "How many bytes in a KiB?", "answer": "1024.",
            "numeric": {"value": 1024, "unit": "B", "tolerance": 0, "tolerance_mode": "absolute"},
            "sources": ["IEC 80000-13:2008, binary prefixes (kibi = 2^10)"]}


NEW_TERM = {"slug": "contract-term", "term": "Contract term", "definition": "A term written by the contract test."}
NEW_MODEL = {
    "slug": "contract-model", "name": "Contract 1B", "num_layers": 16, "hidden_size": 2048, "num_attention_heads": 32,
    "num_kv_heads": 8, "head_dim": 64, "intermediate_size": 8192, "vocab_size": 128256,
    "max_position_embeddings": 131072, "tie_word_embeddings": True, "attention": "gqa", "total_params": 1.24e9,
    "active_params": 1.24e9, "hf_id": "example/contract-1b", "source": "The contract test"}
NEW_GPU = {"slug": "contract-gpu", "name": "Contract GPU", "vendor": "nvidia", "memory_bytes": 80e9,
           "hbm_bandwidth_bytes_per_s": 3.35e12, "bf16_dense_flops": 989e12, "interconnect_bandwidth_bytes_per_s": 900e9,
           "int8_dense_ops": 1979e12, "price_per_hour_usd": 2.5, "source": "The contract test"}
MODEL_GPU = {"model": "llama-3.1-8b", "gpu": "h100-sxm"}
WORKLOAD = {"num_requests": 20, "arrival_rate_per_s": 10, "prompt_tokens": 100, "output_tokens": 10}
SWEEP = {**MODEL_GPU, "grid": {"max_num_seqs": [8, 16]}, "workload": WORKLOAD}
NODE = {"name": "gpu-a", "allocatable": {"cpu": 190, "memory": "1900Gi", "nvidia.com/gpu": 8},
        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]}
POD = {"requests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": 2},
       "limits": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": 2}}
NO_SUCH_MODEL = {"model": "no-such-model"}
PNG_1X1 = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b"
                        "550000000a49444154789c636800000082008177cd72b60000000049454e44ae426082")  # a grey pixel
OWN_CARD = {"kind": "basic", "front": "What does PagedAttention page?", "back": "The KV cache.", "deck": "all"}
PRESET = {"name": "Before the interview", "desired_retention": 0.95, "new_cards_per_day": 40,
          "max_reviews_per_day": 400, "learning_steps": [1, 10], "relearning_steps": [10]}


def _simulator(body: dict, bad: dict | None = None) -> Example:
    """A simulator call: anonymous, with a bad value in the body (by default an unknown catalog model)."""
    return Example(who="anonymous", body=body, bad=Bad(body={**body, **(bad or NO_SUCH_MODEL)}, status=400))


def _card() -> Example:
    """A per-card action on a card of the learner's; a card id past the database's range is a 404."""
    return Example(path=lambda c: {"card_id": c.card()}, bad=Bad(path={"card_id": 2**63}, status=404))


def _public(**kwargs) -> Example:
    return Example(who="anonymous", **kwargs)


EXAMPLES: dict[str, Example] = {
    # --- accounts ----------------------------------------------------------------------------------------------
    "auth_csrf_retrieve": _public(bad=Bad(method="post", status=405)),
    "auth_login_create": Example(who="anonymous", body=lambda c: {"username": c.user.username,
                                                                  "password": "correct-horse-battery-9"},
                                 bad=Bad(body=lambda c: {"username": c.user.username, "password": "wrong"})),
    "auth_logout_create": Example(bad=Bad(method="get", status=405)),
    "auth_me_retrieve": Example(bad=Bad(who="anonymous")),
    "auth_me_reading_settings_retrieve": Example(bad=Bad(who="anonymous")),
    "auth_me_reading_settings_partial_update": Example(body={"theme": "dark", "text_size": "large"},
                                                       bad=Bad(body={"theme": "purple"}, status=400)),
    "auth_register_create": Example(who="anonymous", body={"username": "contract-new", "password": "correct-horse-9x",
                                                          "issue_token": True},
                                    bad=Bad(body={"username": "contract-new", "password": "short"}, status=400)),
    "auth_token_create": Example(who="anonymous", body=lambda c: {"username": c.user.username,
                                                                  "password": "correct-horse-battery-9"},
                                 bad=Bad(body={"username": "nobody"}, status=400)),
    # --- courses -----------------------------------------------------------------------------------------------
    "chapters_list": _public(query={"level": "core"}, bad=Bad(query={"page": 999}, status=404)),
    "chapters_create": Example(who="author", body=new_chapter,
                               bad=Bad(body={"slug": "Not A Slug", "title": ""}, status=400)),
    "chapters_retrieve": _public(path=lambda c: {"slug": c.chapter()}, bad=Bad(path={"slug": MISSING}, status=404)),
    "chapters_partial_update": Example(who="author", path=lambda c: {"slug": c.draft_chapter()},
                                       body={"summary": "Revised summary."},
                                       bad=Bad(body={"order": "first"}, status=400)),
    "chapters_destroy": Example(who="author", path=lambda c: {"slug": c.draft_chapter()},
                                bad=Bad(path={"slug": MISSING}, status=404)),
    "chapters_progress_update": Example(path=lambda c: {"slug": c.chapter()}, body={"status": "understood"},
                                        bad=Bad(body={"status": "mastered"}, status=400)),
    "concept_map_retrieve": _public(bad=Bad(method="post", status=405)),
    "concept_map_path_retrieve": _public(query=lambda c: {"to": c.chapter()}, bad=Bad(query={"to": MISSING})),
    "progress_retrieve": Example(bad=Bad(who="anonymous")),
    "progress_merge_create": Example(body=lambda c: {"chapters": {c.chapter(): "reading"}},
                                     bad=Bad(body={"chapters": "all"}, status=400)),
    "parts_list": _public(bad=Bad(method="post", status=405)),
    # --- glossary ----------------------------------------------------------------------------------------------
    "glossary_list": _public(query={"q": "kv"}, bad=Bad(query={"page": 999}, status=404)),
    "glossary_create": Example(who="author", body=NEW_TERM, bad=Bad(body={"slug": "x"}, status=400)),
    "glossary_retrieve": _public(path=lambda c: {"slug": c.term()}, bad=Bad(path={"slug": MISSING}, status=404)),
    "glossary_partial_update": Example(who="author", path=lambda c: {"slug": c.draft_term()},
                                       body={"definition": "Revised."}, bad=Bad(body={"aliases": "x"}, status=400)),
    "glossary_destroy": Example(who="author", path=lambda c: {"slug": c.draft_term()},
                                bad=Bad(path={"slug": MISSING}, status=404)),
    # --- quiz --------------------------------------------------------------------------------------------------
    "questions_list": _public(query={"kind": "numeric"}, bad=Bad(query={"kind": "essay"}, status=400)),
    "questions_create": Example(who="author", body=new_question,
                                bad=Bad(body=lambda c: {**new_question(c), "numeric": {"value": "a lot"}},
                                        status=400)),
    "questions_retrieve": _public(path=lambda c: {"id": c.question()}, bad=Bad(path={"id": 2**63}, status=404)),
    "questions_partial_update": Example(who="author", path=lambda c: {"id": c.draft_question()},
                                        body={"prompt": "How many bytes in one KiB?"},
                                        bad=Bad(body={"level": "guru"}, status=400)),
    "questions_destroy": Example(who="author", path=lambda c: {"id": c.draft_question()},
                                 bad=Bad(path={"id": 999_999_999}, status=404)),
    "questions_check_create": _public(path=lambda c: {"id": c.question()},
                                      body=lambda c: {"answer": c.numeric_answer()},
                                      bad=Bad(body={"answer": {"value": "lots"}}, status=400)),
    "topics_list": _public(bad=Bad(query={"page": 999}, status=404)),
    "numbers_list": _public(bad=Bad(query={"page": 999}, status=404)),
    "diagnosis_list": _public(bad=Bad(query={"page": 999}, status=404)),
    "diagnosis_attempts_create": Example(path=lambda c: {"slug": c.scenario()}, bad=Bad(path={"slug": MISSING},
                                                                                        status=404)),
    "diagnosis_attempts_list": Example(setup=lambda c: c.attempt(), bad=Bad(who="anonymous")),
    "diagnosis_attempts_evidence_create": Example(path=lambda c: {"attempt_id": c.attempt()},
                                                  body=lambda c: {"evidence": c.evidence_key()},
                                                  bad=Bad(body={"evidence": MISSING}, status=400)),
    "diagnosis_attempts_answer_create": Example(path=lambda c: {"attempt_id": c.attempt()},
                                                body=lambda c: {"answer": c.cause()},
                                                bad=Bad(body={"answer": "gremlins"}, status=400)),
    "practice_sessions_list": Example(bad=Bad(who="anonymous")),
    "practice_sessions_create": Example(body=lambda c: {"chapter": [c.chapter_of(c.question())], "kind": ["numeric"]},
                                        bad=Bad(body={"size": 0}, status=400)),
    "practice_sessions_retrieve": Example(path=lambda c: {"session_id": c.session()},
                                          bad=Bad(path={"session_id": uuid.UUID(int=1)}, status=404)),
    "practice_sessions_answers_create": Example(
        path=lambda c: {"session_id": c.session()},
        body=lambda c: {"question": c.ok("get", f"/api/v1/practice/sessions/{c.session()}/")["questions"][0]["id"],
                        "answer": c.numeric_answer_of(
                            c.ok("get", f"/api/v1/practice/sessions/{c.session()}/")["questions"][0]["id"])},
        bad=Bad(body={"question": 0}, status=400)),
    "practice_sessions_summary_retrieve": Example(path=lambda c: {"session_id": c.answered_session()},
                                                  bad=Bad(path={"session_id": uuid.UUID(int=1)}, status=404)),
    "search_retrieve": _public(query={"q": "kv cache"}, bad=Bad(query={"q": ""}, status=400)),
    # --- flashcards --------------------------------------------------------------------------------------------
    "flashcards_retrieve": _card(),
    "flashcards_bury_create": _card(),
    "flashcards_suspend_create": _card(),
    "flashcards_unsuspend_create": _card(),
    "flashcards_unbury_create": _card(),
    "flashcards_flag_create": Example(path=lambda c: {"card_id": c.card()}, body={"flag": 1},
                                      bad=Bad(body={"flag": 8}, status=400)),
    "flashcards_note_update": Example(path=lambda c: {"card_id": c.card()}, body={"note": "Recheck the GQA factor."},
                                      bad=Bad(body={"note": "x" * 100_000}, status=400)),
    "flashcards_cram_retrieve": Example(setup=lambda c: c.reviewed_card(), query={"include_new": "true", "limit": 5},
                                        bad=Bad(query={"deck": MISSING}, status=404)),
    "flashcards_review_create": Example(path=lambda c: {"card_id": c.card()}, status=201,
                                        body=lambda c: {"rating": 3, "review_id": str(uuid.uuid4())},
                                        bad=Bad(body={"rating": 5, "review_id": "x"}, status=400)),
    "flashcards_undo_create": Example(path=lambda c: {"card_id": c.reviewed_card()}, body={},
                                      bad=Bad(path={"card_id": 2**63}, status=404)),
    "flashcards_cards_retrieve": Example(query={"q": "kv", "sort": "due"}, bad=Bad(query={"difficulty_min": "hard"},
                                                                                     status=400)),
    "flashcards_anki_decks_list": Example(setup=lambda c: c.anki_deck_card(), bad=Bad(who="anonymous")),
    "flashcards_cards_bulk_create": Example(body=lambda c: {"card_ids": [c.card()], "action": "suspend"},
                                            bad=Bad(body={"card_ids": [], "action": "suspend"}, status=400)),
    "flashcards_deck_tree_retrieve": Example(bad=Bad(who="anonymous")),
    "flashcards_decks_list": Example(bad=Bad(who="anonymous")),
    "flashcards_decks_add_create": Example(path=lambda c: {"slug": c.chapter_deck()},
                                           bad=Bad(path={"slug": MISSING}, status=404)),
    "flashcards_due_retrieve": Example(query={"limit": 5}, bad=Bad(query={"limit": 0}, status=400)),
    "flashcards_export_retrieve": Example(query={"format": "json"}, bad=Bad(query={"format": "xml"}, status=400)),
    "flashcards_exports_list": Example(setup=lambda c: c.export_job(), bad=Bad(who="anonymous")),
    "flashcards_exports_create": Example(body={"format": "apkg"},
                                         bad=Bad(body={"format": "apkg", "compress": True}, status=400)),
    "flashcards_exports_retrieve": Example(path=lambda c: {"job_id": c.export_job()},
                                           bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "flashcards_exports_file_retrieve": Example(path=lambda c: {"job_id": c.export_job()},
                                                bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "flashcards_imports_list": Example(setup=lambda c: c.import_job(), bad=Bad(who="anonymous")),
    "flashcards_imports_create": Example(query={"format": "apkg"}, body=Ctx.anki_package,
                                         bad=Bad(query={"format": "xml"}, status=400)),
    "flashcards_imports_retrieve": Example(path=lambda c: {"job_id": c.import_job()},
                                           bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "flashcards_optimize_create": Example(
        setup=lambda c: c.monkeypatch.setattr("apps.flashcards.optimization.MIN_REVIEWS", 0), bad=Bad(who="anonymous")),
    "flashcards_optimize_retrieve": Example(path=lambda c: {"job_id": c.optimization()},
                                            bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "flashcards_optimize_apply_create": Example(path=lambda c: {"job_id": c.optimization()},
                                                bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "flashcards_optimize_discard_create": Example(path=lambda c: {"job_id": c.optimization()},
                                                  bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "flashcards_stats_retrieve": Example(bad=Bad(who="anonymous")),
    "flashcards_own_create": Example(body=OWN_CARD, bad=Bad(body={**OWN_CARD, "front": ""}, status=400)),
    "flashcards_own_retrieve": Example(path=lambda c: {"card_id": c.own_card()},
                                       bad=Bad(path={"card_id": 2**63}, status=404)),
    "flashcards_own_partial_update": Example(path=lambda c: {"card_id": c.own_card()}, body={"back": "Its KV cache."},
                                             bad=Bad(body={"deck": "Not A Slug"}, status=400)),
    "flashcards_own_destroy": Example(path=lambda c: {"card_id": c.own_card()},
                                      bad=Bad(path={"card_id": 2**63}, status=404)),
    "flashcards_check_create": Example(path=lambda c: {"card_id": c.numeric_card()}, body=Ctx.numeric_typed_answer,
                                       bad=Bad(body={"answer": "lots"}, status=400)),
    "flashcards_images_create": Example(body=PNG_1X1, query={"alt": "one pixel"}, status=201,
                                        bad=Bad(body=b"<svg xmlns='http://www.w3.org/2000/svg'/>", status=400)),
    "flashcards_images_destroy": Example(path=lambda c: {"image_id": c.image()},
                                         bad=Bad(path={"image_id": 2**63 - 1}, status=404)),
    "flashcards_presets_list": Example(setup=lambda c: c.preset(), bad=Bad(who="anonymous")),
    "flashcards_presets_create": Example(body=PRESET, bad=Bad(body={**PRESET, "desired_retention": 2}, status=400)),
    "flashcards_presets_retrieve": Example(path=lambda c: {"preset_id": c.preset()},
                                           bad=Bad(path={"preset_id": 999_999_999}, status=404)),
    "flashcards_presets_partial_update": Example(path=lambda c: {"preset_id": c.preset()}, body={"new_cards_per_day": 30},
                                                 bad=Bad(body={"learning_steps": ["soon"]}, status=400)),
    "flashcards_presets_destroy": Example(path=lambda c: {"preset_id": c.preset()},
                                          bad=Bad(path={"preset_id": 999_999_999}, status=404)),
    "flashcards_decks_preset_update": Example(path=lambda c: {"slug": c.chapter_deck()}, body=lambda c: {"preset": c.preset()},
                                              bad=Bad(path={"slug": MISSING}, status=404)),
    "srs_settings_retrieve": Example(bad=Bad(who="anonymous")),
    "study_plan_update": Example(body=lambda ctx: _plan_body(), bad=Bad(body={"interview_date": "2020-01-01",
                                                                            "minutes_per_day": 30, "level": "mid"})),
    "study_plan_retrieve": Example(setup=lambda ctx: ctx.ok("put", "/api/v1/study-plan/", _plan_body()),
                                   bad=Bad(who="anonymous")),
    "study_plan_destroy": Example(setup=lambda ctx: ctx.ok("put", "/api/v1/study-plan/", _plan_body()),
                                  bad=Bad(who="anonymous")),
    "study_plan_calendar": Example(setup=lambda ctx: ctx.ok("put", "/api/v1/study-plan/", _plan_body()),
                                   bad=Bad(who="anonymous")),
    "srs_settings_partial_update": Example(body={"desired_retention": 0.85}, bad=Bad(body={"desired_retention": 2},
                                                                                     status=400)),
    # --- design exercises --------------------------------------------------------------------------------------
    "design_exercises_list": Example(query={"category": "chat"}, bad=Bad(query={"category": "poetry"}, status=400)),
    "design_exercises_retrieve": Example(path=lambda c: {"slug": c.exercise()}, bad=Bad(path={"slug": MISSING}, status=404)),
    "design_exercises_attempts_create": Example(
        path=lambda c: {"slug": c.exercise()}, body=lambda c: {"deployment": c.quick_deployment(), "rationale": "Why."},
        status=201, bad=Bad(body=lambda c: {"deployment": {**c.quick_deployment(), "tensor_parallel": 3}}, status=400)),
    "design_exercises_attempts_list": Example(path=lambda c: {"slug": c.exercise()}, bad=Bad(who="anonymous", status=401)),
    "design_exercises_attempts_retrieve": Example(path=lambda c: {"slug": c.exercise(), "attempt_id": c.design_attempt()},
                                                  bad=Bad(path=lambda c: {"slug": c.exercise(), "attempt_id": 999_999},
                                                          status=404)),
    "design_exercises_attempts_partial_update": Example(
        path=lambda c: {"slug": c.exercise(), "attempt_id": c.design_attempt()}, body={"key_points_met": [0]},
        bad=Bad(body={"key_points_met": [99]}, status=400)),
    # --- simulators --------------------------------------------------------------------------------------------
    "health_retrieve": _public(bad=Bad(method="post", status=405)),
    "simulators_models_list": _public(bad=Bad(query={"page": 999}, status=404)),
    "simulators_models_create": Example(who="author", body=NEW_MODEL, bad=Bad(body={**NEW_MODEL, "num_layers": 0},
                                                                               status=400)),
    "simulators_models_retrieve": _public(path={"slug": "llama-3.1-8b"}, bad=Bad(path={"slug": MISSING}, status=404)),
    "simulators_models_partial_update": Example(who="author", path=lambda c: {"slug": c.draft_model()},
                                                body={"name": "Contract 1B v2"},
                                                bad=Bad(body={"num_kv_heads": -1}, status=400)),
    "simulators_models_destroy": Example(who="author", path=lambda c: {"slug": c.draft_model()},
                                         bad=Bad(path={"slug": MISSING}, status=404)),
    "simulators_gpus_list": _public(bad=Bad(query={"page": 999}, status=404)),
    "simulators_gpus_create": Example(who="author", body=NEW_GPU, bad=Bad(body={**NEW_GPU, "memory_bytes": -1},
                                                                           status=400)),
    "simulators_gpus_retrieve": _public(path={"slug": "h100-sxm"}, bad=Bad(path={"slug": MISSING}, status=404)),
    "simulators_gpus_partial_update": Example(who="author", path=lambda c: {"slug": c.draft_gpu()},
                                              body={"price_per_hour_usd": 3.0},
                                              bad=Bad(body={"price_per_hour_usd": -1}, status=400)),
    "simulators_gpus_destroy": Example(who="author", path=lambda c: {"slug": c.draft_gpu()},
                                       bad=Bad(path={"slug": MISSING}, status=404)),
    "simulators_kv_cache_create": _simulator({"model": "llama-3.1-8b", "context_tokens": 8192, "batch_size": 16}),
    "simulators_fit_create": _simulator({**MODEL_GPU, "context_tokens": 8192}),
    "simulators_step_time_create": _simulator({**MODEL_GPU, "context_tokens": 8192, "phase": "decode"}),
    "simulators_throughput_latency_create": _simulator({**MODEL_GPU, "prompt_tokens": 1000, "output_tokens": 200}),
    "simulators_capacity_create": _simulator({**MODEL_GPU, "workload": {"requests_per_s": 5, "prompt_tokens": 1000,
                                                                        "output_tokens": 200},
                                              "slo": {"ttft_p99_s": 2, "tpot_s": 0.1}}),
    "simulators_speculative_create": _simulator({"acceptance_rate": 0.7, "draft_tokens": 4, "draft_cost": 0.1},
                                                {"acceptance_rate": 1.5}),
    "simulators_collectives_create": _simulator({"op": "all_reduce", "message_bytes": 1e8, "num_gpus": 8,
                                                 "gpu": "h100-sxm"}, {"num_gpus": 0}),
    "simulators_paged_kv_create": _simulator({"model": "llama-3.1-8b", "sequence_lengths": [100, 2000],
                                              "max_model_len": 4096}),
    "simulators_prefix_cache_create": _simulator({"prompts": [[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 9, 9, 9, 9]],
                                                  "block_size": 4, "capacity_blocks": 8}, {"block_size": 0}),
    "simulators_moe_create": _simulator({"num_experts": 64, "top_k": 8, "tokens": 512}, {"top_k": 65}),
    "simulators_request_walk_create": _simulator({**MODEL_GPU, "prompt": "Explain the KV cache.", "output_tokens": 4}),
    "simulators_serve_config_create": _simulator({**MODEL_GPU, "workload": {"prompt_tokens": 1000,
                                                                            "output_tokens": 200}}),
    "simulators_engine_create": _simulator({**MODEL_GPU, "workload": WORKLOAD}),
    "simulators_cluster_create": _simulator({**MODEL_GPU, "replicas": 2, "workload": WORKLOAD,
                                             "disaggregation": {"prefill_replicas": 1, "decode_replicas": 1}}),
    "simulators_k8s_pending_create": _simulator({"pod": POD, "nodes": [NODE]}, {"nodes": "all"}),
    "simulators_k8s_quota_gates_create": _simulator(
        {"desired_replicas": 8, "gpus_per_replica": 2, "cloud_gpu_quota": 64, "instances_available": 10,
         "pool_max_nodes": 10, "namespace_gpu_quota": 10, "namespace_gpus_used": 4}, {"gpus_per_replica": 0}),
    "simulators_k8s_rotation_create": _simulator({"nodes": 4, "gpus_per_replica": 2, "replicas": 16,
                                                  "replicas_needed": 12, "pdb_min_available": 12}, {"nodes": -1}),
    "simulators_k8s_manifest_create": _simulator({"model": "meta-llama/Llama-3.1-8B-Instruct", "tp": 2},
                                                 {"tp": 0}),
    "simulators_sweeps_list": Example(bad=Bad(who="anonymous")),
    "simulators_sweeps_create": Example(body={**SWEEP, "max_gpus": 2, "grid": {  # 2 colocated + 2 P/D layouts
        "max_num_seqs": [8, 16], "prefill_replicas": [1], "decode_replicas": [1], "kv_transfer": ["nvlink"]}},
                                        bad=Bad(body={**SWEEP, "grid": {}}, status=400)),
    "simulators_sweeps_retrieve": Example(path=lambda c: {"job_id": c.sweep()},
                                          bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "simulators_sweeps_status_retrieve": Example(path=lambda c: {"job_id": c.sweep()},
                                                 bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "simulators_sweeps_cancel_create": Example(path=lambda c: {"job_id": c.queued_sweep()},
                                               bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "simulators_engine_jobs_list": Example(bad=Bad(who="anonymous")),
    "simulators_engine_jobs_create": Example(body={**MODEL_GPU, "workload": {**WORKLOAD, "num_requests": 5000}},
                                             bad=Bad(body={**MODEL_GPU, "workload": {**WORKLOAD, "num_requests": 20_001}},
                                                     status=400)),
    "simulators_engine_jobs_retrieve": Example(path=lambda c: {"job_id": c.engine_job()},
                                               bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
    "simulators_engine_jobs_cancel_create": Example(path=lambda c: {"job_id": c.engine_job()},
                                                    bad=Bad(path={"job_id": uuid.UUID(int=1)}, status=404)),
}
