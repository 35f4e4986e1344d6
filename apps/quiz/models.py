import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from simple_history.models import HistoricalRecords

from apps.core.models import ContentModel
from apps.core.validation import has_nul, markdown_error
from apps.courses.models import Level


class Kind(models.TextChoices):
    OPEN = "open", "Open (self-rated)"
    SINGLE_CHOICE = "single_choice", "Single choice"
    MULTIPLE_CHOICE = "multiple_choice", "Multiple choice"
    NUMERIC = "numeric", "Numeric"
    ORDERING = "ordering", "Ordering"
    CATEGORIZE = "categorize", "Categorize"
    MATCHING = "matching", "Matching"


AUTO_CHECKED = {Kind.SINGLE_CHOICE, Kind.MULTIPLE_CHOICE, Kind.NUMERIC, Kind.ORDERING, Kind.CATEGORIZE, Kind.MATCHING}


class Topic(models.Model):
    slug = models.SlugField(max_length=80, unique=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


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
    history = HistoricalRecords()

    class Meta:
        ordering = ["id"]

    def clean(self) -> None:
        """The answer key fits the kind (normalized in place; a changed key bumps key_version), prompt and answer
        render as Markdown. Key errors are reported on ``key`` and name the part, e.g. ``numeric.tolerance: ...``."""
        # keys.py reads Kind from this module: imported at call time to keep the two in one app without a cycle.
        from apps.quiz.keys import KeyError_, validate_key

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

    class Meta:
        ordering = ["label"]


class Bottleneck(models.TextChoices):
    COMPUTE = "compute", "Compute-bound"
    MEMORY = "memory", "Memory-bound"
    COMMUNICATION = "communication", "Communication-bound"
    SCHEDULING = "scheduling", "Scheduling-bound"
    WORKLOAD = "workload", "Workload-bound"


class DiagnosisScenario(ContentModel):
    symptom = models.TextField()
    details = models.TextField(blank=True)
    answer = models.CharField(max_length=20, choices=Bottleneck.choices)
    reasoning = models.TextField()
    chapters = models.ManyToManyField("courses.Chapter", related_name="diagnosis_scenarios", blank=True)
    history = HistoricalRecords()


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
