from django.conf import settings
from django.db import models
from simple_history.models import HistoricalRecords

from apps.core.models import ContentModel


class Category(models.TextChoices):
    CHAT = "chat", "Chat"
    LONG_CONTEXT = "long-context", "Long context"
    REASONING = "reasoning", "Reasoning"
    AGENTS = "agents", "Agents with cache reuse"
    MOE = "moe", "Mixture of experts"
    DISAGGREGATION = "disaggregation", "Prefill/decode disaggregation"
    BATCH = "batch", "Batch and bursty traffic"


class ExerciseLevel(models.TextChoices):
    SENIOR = "senior", "Senior"
    STAFF = "staff", "Staff"


class DesignExercise(ContentModel):
    """A capacity-planning question as an interviewer poses it: a model, traffic, SLOs and constraints. Answers are
    graded by the simulators (apps.exercises.grading); ``best`` is the cheapest deployment the release's search
    over ``search`` found meeting the SLOs (fixtures/design_exercises/_best.json, written by design_exercises_best)."""

    title = models.CharField(max_length=120)
    category = models.CharField(max_length=20, choices=Category.choices, db_index=True)
    level = models.CharField(max_length=10, choices=ExerciseLevel.choices)
    brief = models.TextField(help_text="Markdown: the question as an interviewer would say it")
    model_slug = models.CharField(max_length=120, help_text="Catalog model slug")
    traffic = models.JSONField(help_text="The engine workload the grader simulates")
    slo = models.JSONField(help_text="{ttft_s, tpot_s}: p99 limits in seconds")
    constraints = models.JSONField(help_text="{gpus, max_gpus, max_gpus_per_replica, budget_usd_per_hour}")
    search = models.JSONField(help_text="The grid the release's search for the best answer covers")
    key_points = models.JSONField(default=list, help_text="What an interviewer listens for in the rationale")
    sources = models.JSONField(default=list, blank=True)
    best = models.JSONField(default=dict, blank=True, help_text="The best deployment found for this release")
    history = HistoricalRecords()

    class Meta:
        ordering = ["category", "slug"]

    def __str__(self) -> str:
        return self.title


class DesignAttempt(models.Model):
    """One graded answer of a signed-in learner: the deployment, the written rationale, the simulators' grade and
    the learner's own rating of the rationale against the exercise's key points."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="design_attempts")
    exercise = models.ForeignKey(DesignExercise, on_delete=models.CASCADE, related_name="attempts")
    deployment = models.JSONField()
    rationale = models.TextField(blank=True)
    grade = models.JSONField()
    score = models.PositiveSmallIntegerField()
    key_points_met = models.JSONField(null=True, blank=True, help_text="Indices of the key points the learner says "
                                                                       "the rationale covers (null: not rated yet)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "exercise", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.user} on {self.exercise.slug}: {self.score}"

    @property
    def rationale_score(self) -> float | None:
        if self.key_points_met is None:
            return None
        return round(len(self.key_points_met) / max(1, len(self.exercise.key_points)), 3)
