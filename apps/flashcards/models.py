"""Flashcards: shared cards derived from content, decks, and each learner's FSRS state and review log."""

import uuid

from django.conf import settings
from django.db import models


class SourceType(models.TextChoices):
    QUESTION = "question", "Question"
    TERM = "term", "Glossary term"
    NUMBER = "number", "Number to memorize"
    OWN = "own", "Your own card"


class CardState(models.IntegerChoices):
    """fsrs.State plus NEW (never reviewed); py-fsrs has no separate New state."""

    NEW = 0, "New"
    LEARNING = 1, "Learning"
    REVIEW = 2, "Review"
    RELEARNING = 3, "Relearning"


class Flag(models.IntegerChoices):
    """Anki's seven flag colours, with the same numbers (0: no flag)."""

    NONE = 0, "No flag"
    RED = 1, "Red"
    ORANGE = 2, "Orange"
    GREEN = 3, "Green"
    BLUE = 4, "Blue"
    PINK = 5, "Pink"
    TURQUOISE = 6, "Turquoise"
    PURPLE = 7, "Purple"


NOTE_MAX_CHARS = 2000


class DeckKind(models.TextChoices):
    ALL = "all", "All cards"
    PART = "part", "Curriculum part"
    TOPIC = "topic", "Question topic"
    CHAPTER = "chapter", "Chapter"


class Deck(models.Model):
    slug = models.SlugField(max_length=120, unique=True)
    title = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=DeckKind.choices)
    order = models.PositiveIntegerField(default=0)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children",
                               help_text="The deck above this one in the deck tree (a chapter's part)")

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.slug


class Card(models.Model):
    """One card per source object; kept (retired) when the source goes away so review history survives."""

    source_type = models.CharField(max_length=10, choices=SourceType.choices)
    source_id = models.PositiveBigIntegerField()
    ordinal = models.PositiveSmallIntegerField(
        default=0, help_text="Which card of its source: a cloze note's deletion number minus one (Anki's card ord); "
                             "0 for every other card")
    front = models.TextField()
    back = models.TextField()
    front_html = models.TextField(blank=True)
    back_html = models.TextField(blank=True)
    content_hash = models.CharField(max_length=64)
    source_version = models.PositiveIntegerField(default=1, help_text="Question.key_version last seen")
    retired = models.BooleanField(default=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="own_cards",
                              help_text="The learner who wrote this card (source: their OwnNote); null: made from content. "
                                        "Nobody else sees it.")
    decks = models.ManyToManyField(Deck, related_name="cards", blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["source_type", "source_id", "ordinal"],
                                               name="one_card_per_source_ordinal")]
        # the few retired cards: the deck list leaves them out of its counts
        indexes = [models.Index(fields=["id"], name="card_retired", condition=models.Q(retired=True))]

    def __str__(self) -> str:
        return f"{self.source_type}:{self.source_id}"


class OwnNote(models.Model):
    """A card a learner wrote, as they wrote it (Markdown; a cloze keeps its {{c1::...}} marks); its Cards hold
    the two sides as shown (source_type "own", source_id this note's id, owner the learner): one for a basic note,
    one per deletion number for a cloze note (ordinal = the number minus one), as Anki makes them."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="own_notes")
    kind = models.CharField(max_length=10, help_text="basic or cloze")
    front = models.TextField()
    back = models.TextField(blank=True)
    anki_card_id = models.BigIntegerField(null=True, blank=True,
                                          help_text="The card's id in the Anki package it was imported from")
    anki_deck = models.TextField(blank=True, default="",
                                 help_text="The full name of the Anki deck it was imported from (levels joined by ::)")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "anki_card_id"], name="anki_card_imported_once")]


class CardImage(models.Model):
    """An image a learner uploaded for their own cards, kept in the database (no media server): served by
    /api/v1/flashcards/images/<id>/ to its owner only and shown from the card's Markdown by that path."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="card_images")
    data = models.BinaryField()
    content_type = models.CharField(max_length=20, help_text="image/png, image/jpeg, image/webp or image/gif")
    size = models.PositiveIntegerField(help_text="Bytes")
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    alt = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "sha256"], name="card_image_once_per_owner")]


class UserCard(models.Model):
    """A card in one learner's collection with its FSRS scheduling state in plain columns."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="flashcards")
    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="user_cards")
    state = models.PositiveSmallIntegerField(choices=CardState.choices, default=CardState.NEW)
    step = models.PositiveSmallIntegerField(null=True, blank=True, default=0)
    stability = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    due = models.DateTimeField()
    last_review = models.DateTimeField(null=True, blank=True)
    reps = models.PositiveIntegerField(default=0)
    lapses = models.PositiveIntegerField(default=0)
    suspended = models.BooleanField(default=False)
    suspended_by_retirement = models.BooleanField(
        default=False, help_text="Suspended only because the card's source left the curriculum: unsuspended when it returns")
    leech = models.BooleanField(default=False)
    buried_until = models.DateTimeField(null=True, blank=True)
    source_changed = models.BooleanField(default=False)
    flag = models.PositiveSmallIntegerField(choices=Flag.choices, default=Flag.NONE)
    note = models.TextField(blank=True, default="", help_text="The learner's private note on this card (plain text)")
    added_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "card"], name="card_once_per_collection")]
        indexes = [
            models.Index(fields=["user", "suspended", "due"], name="usercard_due_queue"),
            # the review and new sections of the due queue, each read in (due, id) order with a LIMIT
            models.Index(fields=["user", "state", "due", "id"], name="usercard_state_due_id"),
            # the learning section (learning + relearning): a small index the queue reads in (due, id) order
            models.Index(fields=["user", "due", "id"], name="usercard_learning_due",
                         condition=models.Q(state__in=[CardState.LEARNING, CardState.RELEARNING], suspended=False)),
            # the card browser's default order (due, then card): a page is a LIMITed walk of this index
            # (on PostgreSQL it also carries the columns the numeric filters read: migration 0014)
            models.Index(fields=["user", "due", "card"], name="usercard_browse_due"),
            # cards buried until a later time: the deck counts take the buried new cards off the stored counts
            models.Index(fields=["user", "buried_until"], name="usercard_buried",
                         condition=models.Q(buried_until__isnull=False)),
        ]


class UserDeckCount(models.Model):
    """What a deck holds of one learner's collection and changes only when cards, memberships or card states change
    (never by the clock), so the deck tree and deck list need not count every card on each request: kept by
    database triggers on the card, deck membership and UserCard tables (migration 0012; every write path, bulk
    UPDATEs and imports included), recomputed from scratch by ``deck_counts.recount``. ``deck`` null: the whole
    collection."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    deck = models.ForeignKey(Deck, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    cards = models.IntegerField(default=0, help_text="The learner's cards in the deck")
    live = models.IntegerField(default=0, help_text="Those whose card is not retired")
    new_cards = models.IntegerField(default=0, help_text="New cards not suspended (buried or not)")
    live_new_cards = models.IntegerField(default=0, help_text="New cards not suspended whose card is not retired")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "deck"], condition=models.Q(deck__isnull=False),
                                    name="user_deck_count_once"),
            models.UniqueConstraint(fields=["user"], condition=models.Q(deck__isnull=True),
                                    name="user_collection_count_once"),
        ]


class DeckCardCount(models.Model):
    """A deck's cards that are not retired, by owner (0: cards made from content, which every learner may see;
    otherwise the learner whose own cards they are). Kept by the same triggers as UserDeckCount."""

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="+")
    owner_id = models.BigIntegerField(default=0)
    cards = models.IntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["deck", "owner_id"], name="deck_card_count_once")]


class ReviewLog(models.Model):
    """Append-only review history; only undo removes a row. ``before`` is the full pre-review UserCard state."""

    review_id = models.UUIDField(unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_logs")
    user_card = models.ForeignKey(UserCard, on_delete=models.CASCADE, related_name="reviews")
    rating = models.PositiveSmallIntegerField()
    reviewed_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    state_before = models.PositiveSmallIntegerField(choices=CardState.choices)
    state_after = models.PositiveSmallIntegerField(choices=CardState.choices)
    before = models.JSONField()
    after = models.JSONField(help_text="The answer the review endpoint gave; a replay returns it")

    class Meta:
        indexes = [
            models.Index(fields=["user", "reviewed_at"], name="reviewlog_user_time"),
            models.Index(fields=["user_card", "reviewed_at"], name="reviewlog_card_time"),
        ]


class UndoneReview(models.Model):
    """A review that undo removed, kept by its id so that a retried undo of it is answered again (idempotent)
    instead of undoing the review before it."""

    review_id = models.UUIDField(unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_card = models.ForeignKey(UserCard, on_delete=models.CASCADE, related_name="undone_reviews")
    answer = models.JSONField(help_text="The answer the undo endpoint gave; a retried undo returns it")
    undone_at = models.DateTimeField(auto_now_add=True)


def default_steps_learning() -> list[int]:
    return [1, 10]


def default_steps_relearning() -> list[int]:
    return [10]


class SrsSettings(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="srs_settings")
    desired_retention = models.FloatField(default=0.9)
    new_cards_per_day = models.PositiveIntegerField(default=20)
    max_reviews_per_day = models.PositiveIntegerField(default=200)
    learning_steps = models.JSONField(default=default_steps_learning, help_text="Minutes")
    relearning_steps = models.JSONField(default=default_steps_relearning, help_text="Minutes")
    maximum_interval_days = models.PositiveIntegerField(default=36500)
    day_rollover_hour = models.PositiveSmallIntegerField(default=4)
    time_zone = models.CharField(max_length=64, default="UTC")
    fuzzing = models.BooleanField(default=True)
    leech_threshold = models.PositiveSmallIntegerField(default=8)
    parameters = models.JSONField(default=list, blank=True, help_text="21 FSRS-6 weights; empty = defaults")
    daily_goal = models.PositiveIntegerField(default=50, help_text="Reviews a day to aim for; 0: no goal")

    class Meta:
        verbose_name = verbose_name_plural = "SRS settings"


class DeckPreset(models.Model):
    """A named set of deck options, as Anki's option presets: daily limits and the scheduling of the cards of the
    decks assigned to it. The learner's SrsSettings are the Default preset, used wherever no preset is assigned."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="deck_presets")
    name = models.CharField(max_length=80)
    new_cards_per_day = models.PositiveIntegerField(default=20)
    max_reviews_per_day = models.PositiveIntegerField(default=200)
    desired_retention = models.FloatField(default=0.9)
    learning_steps = models.JSONField(default=default_steps_learning, help_text="Minutes")
    relearning_steps = models.JSONField(default=default_steps_relearning, help_text="Minutes")
    parameters = models.JSONField(default=list, blank=True, help_text="21 FSRS-6 weights; empty = the Default's")

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(fields=["user", "name"], name="deck_preset_name_once_per_user")]


class DeckPresetAssignment(models.Model):
    """Which preset one learner uses for one deck (and, unless they have their own, the decks below it)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="+")
    preset = models.ForeignKey(DeckPreset, on_delete=models.CASCADE, related_name="assignments")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "deck"], name="one_preset_per_deck_and_user")]


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    APPLIED = "applied", "Applied"
    DISCARDED = "discarded", "Discarded"


class OptimizationJob(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="fsrs_jobs")
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    preset = models.ForeignKey(DeckPreset, null=True, blank=True, on_delete=models.CASCADE, related_name="+",
                               help_text="Fit to the reviews of this preset's cards; none: the Default preset's")
    review_count = models.PositiveIntegerField(default=0)
    parameters = models.JSONField(default=list, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)


class ImportFormat(models.TextChoices):
    JSON = "json", "The kit's JSON collection file"
    APKG = "apkg", "An Anki package"
    CSV = "csv", "A CSV file of cards (the kit's CSV export, or Front and Back columns)"


class FileJob(models.Model):
    """A collection file moved in the background, one way or the other: an import's upload waits here for its worker,
    an export's file waits here, written by its worker, for the learner to download. The file is stored in the row (a
    chunk at a time, apps.flashcards.interchange.jobs), so the web server and the worker need no shared disk."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    progress = models.FloatField(default=0.0, help_text="0 to 1")
    file = models.BinaryField(default=bytes, editable=False)
    file_bytes = models.PositiveBigIntegerField(default=0)
    error = models.JSONField(null=True, blank=True, help_text="{detail, fields}: why the job failed")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]


def _one_active_per_learner(name: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(fields=["user"], condition=models.Q(status__in=["queued", "running"]), name=name)


class ImportJob(FileJob):
    """A collection file a learner uploaded, imported by a worker: the web request only stores it. One queued or
    running import per learner (a second is refused); the upload is dropped once the import has run."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="import_jobs")
    format = models.CharField(max_length=8, choices=ImportFormat.choices)
    result = models.JSONField(null=True, blank=True, help_text="What the import answered (cards, reviews, ...)")

    class Meta(FileJob.Meta):
        constraints = [_one_active_per_learner("one_active_import_per_learner")]


class ExportFormat(models.TextChoices):
    JSON = "json", "The kit's JSON collection file"
    CSV = "csv", "One Anki-ready CSV file"
    APKG = "apkg", "An Anki package"


class ExportJob(FileJob):
    """A learner's collection written to a file by a worker and kept for download for a day, the newest five per
    learner (apps.flashcards.interchange.export_jobs). One queued or running export per learner."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="export_jobs")
    format = models.CharField(max_length=8, choices=ExportFormat.choices)
    cards = models.PositiveIntegerField(default=0, help_text="Cards in the file")

    class Meta(FileJob.Meta):
        constraints = [_one_active_per_learner("one_active_export_per_learner")]
