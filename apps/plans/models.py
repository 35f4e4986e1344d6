from django.conf import settings
from django.db import models

from apps.courses.models import Level


class StudyPlan(models.Model):
    """A learner's interview date and study budget; the plan's days are computed from it and the learner's progress
    each time it is read, so what was done (or skipped) yesterday moves today's plan."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_plan")
    interview_date = models.DateField()
    minutes_per_day = models.PositiveSmallIntegerField()
    days_off = models.JSONField(default=list, blank=True, help_text="Weekdays with no study: 0 Monday ... 6 Sunday")
    level = models.CharField(max_length=10, choices=Level.choices, default=Level.MID)
    parts = models.JSONField(default=list, blank=True, help_text="Part slugs to focus on; empty: every part")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "study plan"

    def __str__(self) -> str:
        return f"{self.user} for {self.interview_date}"
