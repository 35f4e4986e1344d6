from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import ValidationError
from django.db import models
from simple_history.models import HistoricalRecords

from apps.core.models import ChapterLinkedQuerySet, ContentModel
from apps.core.registry import simulator_errors
from apps.core.search_vectors import SearchVectorManager
from apps.core.validation import markdown_error, string_list_error


class Term(ContentModel):
    term = models.CharField(max_length=200)
    aliases = models.JSONField(default=list, blank=True, help_text="Abbreviations and other names, e.g. TTFT")
    definition = models.TextField(help_text="One sentence")
    explanation = models.TextField(blank=True, help_text="Markdown")
    related = models.ManyToManyField("self", symmetrical=False, blank=True, related_name="related_from")
    chapters = models.ManyToManyField("courses.Chapter", related_name="introduced_terms", blank=True)
    simulators = models.JSONField(default=list, blank=True)
    # term and aliases A, definition B, explanation C; written by a database trigger (apps.core.search_vectors)
    search_vector = SearchVectorField(null=True, editable=False)
    history = HistoricalRecords(excluded_fields=["search_vector"])
    objects = SearchVectorManager.from_queryset(ChapterLinkedQuerySet)()

    class Meta:
        ordering = ["term"]
        indexes = [GinIndex(fields=["search_vector"], name="term_search_vector")]

    def get_absolute_url(self) -> str:
        return f"/glossary/{self.slug}"

    def clean(self) -> None:
        """Aliases are non-empty strings, the explanation renders as Markdown, simulator names exist."""
        errors: dict[str, list[str]] = {}
        problem = string_list_error(self.aliases)
        if problem:
            errors["aliases"] = [f"aliases {problem}"]
        problem = markdown_error(self.explanation)
        if problem:
            errors["explanation"] = [f"explanation {problem}"]
        if isinstance(self.definition, str) and len(self.definition) > 2000:
            errors["definition"] = ["a definition is one sentence (at most 2,000 characters)"]
        if simulator_errors(self.simulators):
            errors["simulators"] = simulator_errors(self.simulators)
        if errors:
            raise ValidationError(errors)
