import uuid

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import ValidationError
from django.db import models
from simple_history.models import HistoricalRecords

from apps.core.models import ChapterLinkedQuerySet, ContentModel
from apps.core.search_vectors import SearchVectorManager
from apps.core.validation import has_nul, markdown_error
from apps.courses.models import Level
from apps.quiz.investigation import scenario_errors
from apps.quiz.kinds import REGISTRY, KeyError_, validate_key

# The choices of Question.kind, from the registry of kind objects (apps.quiz.kinds): Kind.NUMERIC == "numeric".
Kind = models.TextChoices("Kind", [(kind.name, (kind.slug, kind.label)) for kind in REGISTRY.values()])
AUTO_CHECKED = {kind.slug for kind in REGISTRY.values() if kind.auto_checked}


# How a topic's slug reads in a title: acronyms and names as the field writes them.
TOPIC_WORDS = {
    "api": "API", "cuda": "CUDA", "ep": "EP", "flashattention": "FlashAttention", "flops": "FLOPs", "gguf": "GGUF",
    "gpu": "GPU", "gpus": "GPUs", "kv": "KV", "lora": "LoRA", "mig": "MIG", "mla": "MLA", "mmap": "mmap",
    "moe": "MoE", "multi-lora": "Multi-LoRA", "nccl": "NCCL", "pd": "P/D", "rl": "RL", "sglang": "SGLang",
    "slo": "SLO", "slos": "SLOs", "ttft": "TTFT", "vllm": "vLLM", "littles": "Little's",
    "multi-node": "Multi-node", "multi-tenancy": "Multi-tenancy", "prefill-decode": "Prefill/decode",
}


def topic_title(slug: str) -> str:
    """'kv-cache' -> 'KV cache', 'api' -> 'API', 'littles-law' -> "Little's law": the first word capitalized unless
    the field writes it otherwise."""
    if slug in TOPIC_WORDS:
        return TOPIC_WORDS[slug]
    words = [TOPIC_WORDS.get(word, word) for word in slug.split("-")]
    if words and words[0] == slug.split("-")[0]:
        words[0] = words[0].capitalize()
    return " ".join(words)


class Topic(models.Model):
    slug = models.SlugField(max_length=80, unique=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug

    @property
    def title(self) -> str:
        return topic_title(self.slug)


class Question(ContentModel):
    kind = models.CharField(max_length=20, choices=Kind.choices, db_index=True)
    level = models.CharField(max_length=10, choices=Level.choices, db_index=True)
    prompt = models.TextField(help_text="Markdown")
    answer = models.TextField(help_text="Model answer and explanation (Markdown)")
    key = models.JSONField(default=dict, blank=True, help_text="Answer key for auto-checked kinds")
    topics = models.ManyToManyField(Topic, related_name="questions", blank=True)
    chapters = models.ManyToManyField("courses.Chapter", related_name="questions", blank=True)
    glossary_terms = models.ManyToManyField("glossary.Term", related_name="questions", blank=True)
    key_version = models.PositiveIntegerField(default=1, help_text="Bumped when the answer key changes")
    sources = models.JSONField(
        default=list, blank=True, help_text="Where its facts come from: a file and function at a release, a paper section, a datasheet",
    )
    # prompt B, answer D; written by a database trigger (apps.core.search_vectors), read by search only
    search_vector = SearchVectorField(null=True, editable=False)
    history = HistoricalRecords(excluded_fields=["search_vector"])
    objects = SearchVectorManager.from_queryset(ChapterLinkedQuerySet)()

    class Meta:
        ordering = ["id"]
        indexes = [GinIndex(fields=["search_vector"], name="question_search_vector")]

    def clean(self) -> None:
        """The answer key fits the kind (normalized in place; a changed key bumps key_version), prompt and answer
        render as Markdown. Key errors are reported on ``key`` and name the part, e.g. ``numeric.tolerance: ...``."""
        errors: dict[str, list[str]] = {}
        for name in ("prompt", "answer"):
            problem = markdown_error(getattr(self, name))
            if problem:
                errors[name] = [f"{name} {problem}"]
        if self.kind in Kind.values:
            try:
                self.key = validate_key(self.kind, self.key)
            except KeyError_ as exc:
                errors["key"] = [f"{exc.field}: {exc}"]
            else:
                if has_nul(self.key):
                    errors["key"] = ["the answer key must not contain NUL characters"]
        if errors:
            raise ValidationError(errors)
        if self.pk is not None:
            old = type(self).objects.filter(pk=self.pk).values_list("kind", "key", "key_version").first()
            if old is not None and (old[0], old[1]) != (self.kind, self.key):
                # What learners were graded against changed: reviews and sessions see a new version.
                self.key_version = old[2] + 1


class NumberToMemorize(ContentModel):
    label = models.CharField(max_length=200)
    value = models.CharField(max_length=60)
    unit = models.CharField(max_length=40, blank=True)
    source = models.TextField()
    derivation = models.TextField()
    chapters = models.ManyToManyField("courses.Chapter", related_name="numbers", blank=True)
    history = HistoricalRecords()
    objects = ChapterLinkedQuerySet.as_manager()

    class Meta:
        ordering = ["label"]


class Bottleneck(models.TextChoices):
    COMPUTE = "compute", "Compute-bound"
    MEMORY = "memory", "Memory-bound"
    COMMUNICATION = "communication", "Communication-bound"
    SCHEDULING = "scheduling", "Scheduling-bound"
    WORKLOAD = "workload", "Workload-bound"


class IncidentCause(models.TextChoices):
    """What the Kubernetes incident game asks the learner to name."""
    OOM_ON_LOAD = "oom-on-load", "Container memory limit below what loading the model needs"
    BAD_ENGINE_FLAG = "bad-engine-flag", "An engine flag the server refuses"
    GPU_QUOTA = "gpu-quota", "Namespace GPU quota exhausted"
    PROBE_DURING_LOAD = "probe-during-load", "Probes that give up before the model has loaded"
    KV_PREEMPTION = "kv-preemption", "KV cache full: the engine preempts requests"
    NOISY_NEIGHBOUR = "noisy-neighbour", "A noisy neighbour on a shared node"
    IMAGE_PULL = "image-pull", "A huge image pulled on a fresh node"
    SHM_TOO_SMALL = "shm-too-small", "/dev/shm too small for tensor parallelism"
    NCCL_BLOCKED = "nccl-blocked", "Traffic between the nodes of a multi-node replica blocked"


class Game(models.TextChoices):
    """The investigation games: each has its own list of causes (GAME_CAUSES) and its own fixture file."""
    DIAGNOSIS = "diagnosis", "Diagnosis game"
    K8S_INCIDENT = "k8s-incident", "Kubernetes incident game"


GAME_CAUSES: dict[str, type[models.TextChoices]] = {Game.DIAGNOSIS: Bottleneck, Game.K8S_INCIDENT: IncidentCause}


class EvidenceKind(models.TextChoices):
    EVENTS = "events", "Events"
    LOGS = "logs", "Logs"
    METRICS = "metrics", "Metrics"
    CONFIG = "config", "Config"
    PROFILE = "profile", "Profile"
    WORKLOAD = "workload", "Workload"


class DiagnosisScenario(ContentModel):
    """One investigation: a symptom, evidence the learner may ask for (at most MAX_QUESTIONS items), the cause to
    name from its game's list, and the reasoning with the evidence that tells (``telling``: evidence keys)."""
    game = models.CharField(max_length=20, choices=Game.choices, default=Game.DIAGNOSIS, db_index=True)
    symptom = models.TextField()
    details = models.TextField(blank=True)
    evidence = models.JSONField(default=list, blank=True, help_text="[{key, kind, label, text}] in the order offered")
    answer = models.CharField(max_length=20, choices=Bottleneck.choices + IncidentCause.choices)
    telling = models.JSONField(default=list, blank=True, help_text="Keys of the evidence that points to the cause")
    reasoning = models.TextField()
    sources = models.JSONField(default=list, blank=True, help_text="Where its facts and messages come from")
    chapters = models.ManyToManyField("courses.Chapter", related_name="diagnosis_scenarios", blank=True)
    history = HistoricalRecords()

    def clean(self) -> None:
        causes = GAME_CAUSES[self.game].values if self.game in GAME_CAUSES else []
        errors = scenario_errors(causes=causes, kinds=EvidenceKind.values, answer=self.answer, evidence=self.evidence,
                                 telling=self.telling, sources=self.sources)
        problem = markdown_error(self.reasoning)
        if problem:
            errors.setdefault("reasoning", []).append(f"reasoning {problem}")
        if errors:
            raise ValidationError(errors)


class InvestigationAttempt(models.Model):
    """One play of a scenario: the evidence asked for, in order, then the named cause and its score. A signed-in
    learner's attempts are theirs (listed in their history); an anonymous one is reachable only with its token."""
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="investigation_attempts")
    # PROTECT: deleting a scenario must never take learners' attempts with it; the API archives instead.
    scenario = models.ForeignKey(DiagnosisScenario, on_delete=models.PROTECT, related_name="attempts")
    asked = models.JSONField(default=list, blank=True)
    answer = models.CharField(max_length=20, blank=True)
    correct = models.BooleanField(null=True)
    score = models.FloatField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-created_at"], name="attempt_user_recent")]


class SessionMode(models.TextChoices):
    PRACTICE = "practice", "Practice"
    INTERVIEW = "interview", "Interview"


class PracticeSession(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="practice_sessions")
    mode = models.CharField(max_length=10, choices=SessionMode.choices, default=SessionMode.PRACTICE)
    filters = models.JSONField(default=dict, blank=True)
    question_ids = models.JSONField(default=list)
    seconds_per_question = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)


class PracticeAnswer(models.Model):
    session = models.ForeignKey(PracticeSession, on_delete=models.CASCADE, related_name="answers")
    # PROTECT: deleting a question must never take learners' answers with it; the API archives instead.
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="practice_answers")
    response = models.JSONField(default=dict, blank=True)
    score = models.FloatField()
    correct = models.BooleanField()
    self_rating = models.CharField(max_length=5, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    answered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "question"], name="one_answer_per_question_per_session")]
