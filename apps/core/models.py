from django.db import models

from apps.core.permissions import is_author


class Status(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"


class PublishedQuerySet(models.QuerySet):
    def published(self):
        return self.filter(status=Status.PUBLISHED)

    def visible_to(self, user):
        """Authors preview drafts; everyone else sees published items only."""
        return self.for_author(is_author(user))

    def for_author(self, author: bool):
        """``visible_to`` with the author check already made (it costs a query per call)."""
        return self.all() if author else self.published()


class ContentModel(models.Model):
    """Fields every piece of authored content shares."""

    slug = models.SlugField(max_length=120, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PUBLISHED, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    source_file = models.CharField(
        max_length=200, blank=True,
        help_text="The fixtures/ file this item is exported to, e.g. glossary/A.yaml (set by the loader; blank = default)",
    )

    objects = PublishedQuerySet.as_manager()

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.slug
