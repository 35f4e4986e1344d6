from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import ValidationError
from django.db import models
from simple_history.models import HistoricalRecords

from apps.core.models import ContentModel, PublishedQuerySet
from apps.core.search_vectors import SearchVectorManager
from apps.courses.validation import chapter_errors


class Level(models.TextChoices):
    CORE = "core", "Core"
    MID = "mid", "Mid"
    SENIOR = "senior", "Senior"
    STAFF = "staff", "Staff"


class Part(ContentModel):
    title = models.CharField(max_length=200)
    order = models.PositiveIntegerField()
    summary = models.TextField(blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["order"]


class ChapterQuerySet(PublishedQuerySet):
    def readable(self, *, author: bool):
        """Chapters the reader may open: drafts (and chapters of draft parts) only for authors."""
        return self.for_author(author).filter(part__in=Part.objects.for_author(author))

    def links(self, *, author: bool):
        """Readable chapters with just what a link needs (slug and title), in curriculum order."""
        return self.readable(author=author).only("id", "slug", "title").order_by("part__order", "order")


class Chapter(ContentModel):
    part = models.ForeignKey(Part, on_delete=models.PROTECT, related_name="chapters")
    order = models.PositiveIntegerField()
    title = models.CharField(max_length=200)
    summary = models.TextField()
    minutes = models.PositiveIntegerField(default=10)
    level = models.CharField(max_length=10, choices=Level.choices, default=Level.CORE)
    objectives = models.JSONField(default=list)
    key_numbers = models.JSONField(default=list)
    body = models.TextField(help_text="Markdown")
    body_html = models.TextField(blank=True, editable=False, help_text="Sanitized HTML rendered from body")
    prerequisites = models.ManyToManyField("self", symmetrical=False, related_name="unlocks", blank=True)
    simulators = models.JSONField(default=list, blank=True)
    glossary_terms = models.ManyToManyField("glossary.Term", related_name="used_in_chapters", blank=True)
    sources = models.JSONField(
        default=list, blank=True, help_text="Where its facts come from: a file and function at a release, a paper section, a datasheet",
    )
    # title A, summary B, body C; written by a database trigger (apps.core.search_vectors), read by search only
    search_vector = SearchVectorField(null=True, editable=False)
    history = HistoricalRecords(m2m_fields=[prerequisites], excluded_fields=["search_vector"])
    objects = SearchVectorManager.from_queryset(ChapterQuerySet)()

    class Meta:
        ordering = ["part__order", "order"]
        constraints = [models.UniqueConstraint(fields=["part", "order"], name="unique_chapter_order_in_part")]
        indexes = [GinIndex(fields=["search_vector"], name="chapter_search_vector")]

    def get_absolute_url(self) -> str:
        return f"/learn/{self.slug}"

    def clean(self) -> None:
        """Body and summary render as Markdown within the size limit; objectives, key numbers and simulator
        names are well formed. Links (prerequisites, glossary) are checked where they are set: see
        apps.courses.validation.prerequisite_cycle."""
        errors = chapter_errors(self)
        if errors:
            raise ValidationError(errors)


class ProgressStatus(models.TextChoices):
    READING = "reading", "Reading"
    UNDERSTOOD = "understood", "Understood"


class ChapterProgress(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chapter_progress")
    # PROTECT: deleting a chapter must never take learners' progress with it; the API archives instead.
    chapter = models.ForeignKey(Chapter, on_delete=models.PROTECT, related_name="progress")
    status = models.CharField(max_length=12, choices=ProgressStatus.choices)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "chapter progress"
        constraints = [models.UniqueConstraint(fields=["user", "chapter"], name="unique_progress_per_chapter")]
