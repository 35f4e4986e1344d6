from django.db import models
from simple_history.models import HistoricalRecords

from apps.core.models import ContentModel


class Term(ContentModel):
    term = models.CharField(max_length=200)
    aliases = models.JSONField(default=list, blank=True, help_text="Abbreviations and other names, e.g. TTFT")
    definition = models.TextField(help_text="One sentence")
    explanation = models.TextField(blank=True, help_text="Markdown")
    related = models.ManyToManyField("self", symmetrical=False, blank=True, related_name="related_from")
    chapters = models.ManyToManyField("courses.Chapter", related_name="introduced_terms", blank=True)
    simulators = models.JSONField(default=list, blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["term"]

    def get_absolute_url(self) -> str:
        return f"/glossary/{self.slug}"
