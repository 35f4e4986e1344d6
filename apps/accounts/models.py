from django.conf import settings
from django.db import models

READING_DEFAULTS = {
    "theme": "system",
    "text_size": "medium",
    "reading_width": "medium",
    "line_spacing": "normal",
    "density": "comfortable",
    "reduced_motion": False,
}


class Profile(models.Model):
    """Per-account preferences that follow the learner across browsers."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    reading_settings = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"profile of {self.user}"
