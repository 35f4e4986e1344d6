from django.db import models

from apps.core.permissions import is_author


class Status(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"
    # Deleted through the API: hidden from learners and authors' lists and from exports, but the row stays so
    # learners' practice answers, progress and flashcard reviews keep pointing at it (the admin can restore it).
    ARCHIVED = "archived", "Archived"


class PublishedQuerySet(models.QuerySet):
    def published(self):
        return self.filter(status=Status.PUBLISHED)

    def visible_to(self, user):
        """Authors preview drafts; everyone else sees published items only."""
        return self.for_author(is_author(user))

    def for_author(self, author: bool):
        """``visible_to`` with the author check already made (it costs a query per call)."""
        return self.exclude(status=Status.ARCHIVED) if author else self.published()

    def live(self):
        """Everything but archived items (what exports and authors' lists hold)."""
        return self.exclude(status=Status.ARCHIVED)


class ChapterLinkedQuerySet(PublishedQuerySet):
    """Content that belongs to chapters (questions, terms): published means its own status is published and, when
    it belongs to any chapter, at least one of them is readable (published, in a published part). A question
    whose chapters are all drafts, or in a draft part, is hidden with them from every list, search, practice
    filter and deck that reads ``published()``."""

    def published(self):
        field = self.model._meta.get_field("chapters")
        links = field.remote_field.through.objects.filter(**{field.m2m_field_name(): models.OuterRef("pk")})
        chapter = field.m2m_reverse_field_name()
        readable = links.filter(**{f"{chapter}__status": Status.PUBLISHED, f"{chapter}__part__status": Status.PUBLISHED})
        return super().published().filter(~models.Exists(links) | models.Exists(readable))


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


class ContentManifest(models.Model):
    """What the last ``load_content`` loaded: per kind, the slugs the fixture files own (the loader retires only
    those when they leave the files; items authored in the admin or API are never in it), and under the kind
    ``FILES`` the fingerprint of the fixture files (``load_content --if-changed`` skips an unchanged tree)."""

    FILES = "__files__"

    kind = models.CharField(max_length=40, unique=True)
    slugs = models.JSONField(default=list, blank=True)
    fingerprint = models.CharField(max_length=64, blank=True)
    loaded_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.kind
