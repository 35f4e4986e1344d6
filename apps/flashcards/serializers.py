"""Input validation (every field named on error) and output shapes for the schema."""

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from apps.core.serializers import documented_json
from apps.flashcards.checking import ANSWER_MAX_CHARS
from apps.flashcards.images import ALT_MAX_CHARS
from apps.flashcards.interchange.collection import FORMAT_NAME, FORMAT_VERSION, MAX_AFTER_KEYS
from apps.flashcards.models import (
    NOTE_MAX_CHARS,
    CardState,
    ExportFormat,
    Flag,
    ImportFormat,
    SourceType,
    SrsSettings,
)
from apps.flashcards.own_cards import BACK_MAX_CHARS, FRONT_MAX_CHARS, KINDS

MAX_STEP_MINUTES = 1440 * 7
STATE_VALUES = [state.value for state in CardState]
BROWSE_SORT_KEYS = ["due", "added", "lapses", "reps", "difficulty", "stability", "last_review", "card"]


# --- inputs -------------------------------------------------------------------------------------------------


class ReviewInputSerializer(serializers.Serializer):
    rating = serializers.IntegerField(min_value=1, max_value=4, help_text="1 Again, 2 Hard, 3 Good, 4 Easy")
    review_id = serializers.UUIDField(help_text="Chosen by the client; a replay returns the stored answer")
    duration_ms = serializers.IntegerField(min_value=0, max_value=86_400_000, required=False, allow_null=True)


class OwnCardInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=KINDS, help_text="basic, or cloze: deletions written {{c1::answer}} or "
                                                            "{{c1::answer::hint}} in the front")
    front = serializers.CharField(max_length=FRONT_MAX_CHARS, help_text="Markdown")
    back = serializers.CharField(max_length=BACK_MAX_CHARS, allow_blank=True, required=False, default="",
                                 help_text="Markdown; a cloze card's extra text, shown after the answer")
    deck = serializers.SlugField(max_length=120, help_text="The deck it goes in (a chapter, topic or part; or all)")


class OwnCardSerializer(serializers.Serializer):
    card_id = serializers.IntegerField()
    kind = serializers.CharField()
    front = serializers.CharField(help_text="As written")
    back = serializers.CharField(allow_blank=True)
    deck = serializers.CharField()
    front_html = serializers.CharField(help_text="As shown, sanitized")
    back_html = serializers.CharField()
    anki_deck = serializers.CharField(allow_blank=True, help_text="The Anki deck it was imported from (empty: "
                                                                  "written here)")
    note_cards = serializers.ListField(child=serializers.IntegerField(),
                                       help_text="The ids of every card its note makes: one, or one per cloze "
                                                 "deletion number (c1, c2, …) in that order")


class CardCheckInputSerializer(serializers.Serializer):
    answer = serializers.CharField(max_length=ANSWER_MAX_CHARS, trim_whitespace=True,
                                   help_text='A number with its unit if it has one: "140 GB", "1.4e11 bytes", "131,072"')


class CardCheckSerializer(serializers.Serializer):
    result = serializers.ChoiceField(choices=["correct", "wrong"],
                                     help_text="Practice's grade: within the question's tolerance or not")
    correct = serializers.BooleanField()
    expected = serializers.FloatField(help_text="The expected value in `unit`")
    unit = serializers.CharField(allow_blank=True, help_text="The question's unit (empty: a plain number)")
    given_in_unit = serializers.FloatField(help_text="The answer converted to `unit`")
    explanation = serializers.CharField(help_text="The expected value with its tolerance")
    suggested_rating = serializers.IntegerField(help_text="3 Good when correct, 1 Again when wrong; you still rate")


class CardImageQuerySerializer(serializers.Serializer):
    alt = serializers.CharField(required=False, allow_blank=True, max_length=ALT_MAX_CHARS, default="",
                                help_text="Alt text: what the image shows, for the Markdown snippet")


class CardImageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="Where the image is served (to you only)")
    markdown = serializers.CharField(help_text="Paste into a card: ![alt](url)")
    content_type = serializers.CharField()
    size = serializers.IntegerField(help_text="Bytes")
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    sha256 = serializers.CharField()


class FlagInputSerializer(serializers.Serializer):
    flag = serializers.IntegerField(min_value=0, max_value=max(Flag.values),
                                    help_text="0 none, 1 red, 2 orange, 3 green, 4 blue, 5 pink, 6 turquoise, 7 purple")


class NoteInputSerializer(serializers.Serializer):
    note = serializers.CharField(allow_blank=True, max_length=NOTE_MAX_CHARS, trim_whitespace=True,
                                 help_text="Plain text, private to you; empty removes the note")


class DueQuerySerializer(serializers.Serializer):
    deck = serializers.SlugField(required=False, allow_blank=True, max_length=120)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=20)


class CramQuerySerializer(serializers.Serializer):
    deck = serializers.SlugField(required=False, default="all", max_length=120,
                                 help_text="A deck slug: all, a part, a chapter or a topic")
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=20)
    include_new = serializers.BooleanField(required=False, default=False,
                                           help_text="Follow the weakest studied cards with never-studied ones")


ANKI_DECK_MAX_CHARS = 1000


class BrowseQuerySerializer(serializers.Serializer):
    q = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text="Text in the front or back")
    deck = serializers.SlugField(required=False, allow_blank=True, max_length=120, help_text="A deck slug (subtree)")
    tag = serializers.SlugField(required=False, allow_blank=True, max_length=100, help_text="A question topic slug")
    anki_deck = serializers.CharField(
        required=False, allow_blank=True, max_length=ANKI_DECK_MAX_CHARS,
        help_text="Your cards imported from this Anki deck or its subdecks (full name, levels joined by '::'; "
                  "'A::B' also finds 'A::B::C'; '*' is any run of characters, as in Anki: 'Inter*', '*::GPU')")
    state = serializers.MultipleChoiceField(choices=STATE_VALUES, required=False,
                                            help_text="0 new, 1 learning, 2 review, 3 relearning (repeatable)")
    suspended = serializers.BooleanField(required=False, allow_null=True, default=None)
    buried = serializers.BooleanField(required=False, allow_null=True, default=None)
    due_before = serializers.DateField(required=False, help_text="Due before this day (your calendar) starts")
    due_after = serializers.DateField(required=False, help_text="Due after this day (your calendar) ends")
    lapses_min = serializers.IntegerField(required=False, min_value=0, max_value=10**6)
    flag = serializers.IntegerField(required=False, min_value=0, max_value=max(Flag.values),
                                    help_text="Cards with this flag (0: unflagged)")
    difficulty_min = serializers.FloatField(required=False, min_value=1, max_value=10)
    difficulty_max = serializers.FloatField(required=False, min_value=1, max_value=10)
    sort = serializers.ChoiceField(required=False, default="due", choices=[
        *BROWSE_SORT_KEYS, *[f"-{key}" for key in BROWSE_SORT_KEYS]], help_text="A column; '-' for descending")
    page = serializers.IntegerField(required=False, default=1, min_value=1, max_value=100_000)
    page_size = serializers.IntegerField(required=False, default=50, min_value=1, max_value=500)

    def validate_anki_deck(self, value: str) -> str:
        if value and (any(ord(char) < 32 for char in value) or any(not level.strip() for level in value.split("::"))):
            raise serializers.ValidationError("Not an Anki deck name: levels joined by '::', none of them empty, "
                                              "and no control characters.")
        return value

    def validate(self, data):
        low, high = data.get("difficulty_min"), data.get("difficulty_max")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"difficulty_max": ["Must not be below difficulty_min."]})
        return data


class AnkiDeckSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The deck's full name, levels joined by '::'")
    cards = serializers.IntegerField(help_text="Your cards in it and its subdecks")


class BulkInputSerializer(serializers.Serializer):
    card_ids = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
                                     min_length=1, max_length=5000)
    action = serializers.ChoiceField(choices=["suspend", "unsuspend", "bury", "unbury", "reset", "reschedule"])
    due = serializers.DateField(required=False, help_text="reschedule: the day (your calendar) the cards fall due")

    def validate(self, data):
        if data["action"] == "reschedule" and not data.get("due"):
            raise serializers.ValidationError({"due": ["Required to reschedule."]})
        return data


class ExportQuerySerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=["json", "csv", "apkg"], required=False, default="json")


def _validate_steps(value: list[int]) -> list[int]:
    return [int(step) for step in value]


class DeckOptionFields(serializers.Serializer):
    """The options a deck preset holds; the review settings hold them too, as the Default preset."""

    desired_retention = serializers.FloatField(min_value=0.70, max_value=0.99)
    new_cards_per_day = serializers.IntegerField(min_value=0, max_value=9999)
    max_reviews_per_day = serializers.IntegerField(min_value=0, max_value=99999)
    learning_steps = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_STEP_MINUTES), max_length=10,
        help_text="Minutes, 0-10 steps",
    )
    relearning_steps = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_STEP_MINUTES), max_length=10,
        help_text="Minutes, 0-10 steps",
    )


class DeckPresetSerializer(DeckOptionFields):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(max_length=80, help_text="Unique among your presets")
    parameters = serializers.ListField(child=serializers.FloatField(), read_only=True,
                                       help_text="FSRS-6 weights fitted to this preset's cards (empty: the Default's)")
    decks = serializers.ListField(child=serializers.CharField(), read_only=True, help_text="Slugs of its decks")


class PresetAssignSerializer(serializers.Serializer):
    preset = serializers.IntegerField(min_value=1, max_value=2**63 - 1, allow_null=True,
                                      help_text="One of your presets; null: the deck follows its parent or the Default")


class PresetRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class PresetAssignOutputSerializer(serializers.Serializer):
    deck = serializers.CharField()
    preset = PresetRefSerializer(allow_null=True)


class OptimizeInputSerializer(serializers.Serializer):
    preset = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False, allow_null=True,
                                      help_text="Fit this preset's cards; absent or null: the Default preset's")


class SrsSettingsSerializer(DeckOptionFields, serializers.ModelSerializer):
    maximum_interval_days = serializers.IntegerField(min_value=1, max_value=36500)
    day_rollover_hour = serializers.IntegerField(min_value=0, max_value=23)
    time_zone = serializers.CharField(max_length=64, help_text="IANA name, e.g. Europe/Berlin")
    fuzzing = serializers.BooleanField()
    leech_threshold = serializers.IntegerField(min_value=1, max_value=99)
    daily_goal = serializers.IntegerField(min_value=0, max_value=9999, help_text="Reviews a day to aim for; 0: none")
    parameters = serializers.ListField(child=serializers.FloatField(), read_only=True,
                                       help_text="FSRS-6 weights in use (empty: defaults)")

    class Meta:
        model = SrsSettings
        fields = ["desired_retention", "new_cards_per_day", "max_reviews_per_day", "learning_steps",
                  "relearning_steps", "maximum_interval_days", "day_rollover_hour", "time_zone", "fuzzing",
                  "leech_threshold", "daily_goal", "parameters"]

    def validate_time_zone(self, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            raise serializers.ValidationError(f"'{value}' is not an IANA time zone name.")
        return value


class SnapshotSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=STATE_VALUES)
    step = serializers.IntegerField(min_value=0, max_value=100, allow_null=True)
    stability = serializers.FloatField(min_value=0.001, max_value=1e6, allow_null=True)
    difficulty = serializers.FloatField(min_value=1, max_value=10, allow_null=True)
    due = serializers.DateTimeField()
    last_review = serializers.DateTimeField(allow_null=True)
    reps = serializers.IntegerField(min_value=0, max_value=10**7)
    lapses = serializers.IntegerField(min_value=0, max_value=10**7)
    suspended = serializers.BooleanField()
    leech = serializers.BooleanField()
    buried_until = serializers.DateTimeField(allow_null=True)
    source_changed = serializers.BooleanField()


class ImportReviewSerializer(serializers.Serializer):
    review_id = serializers.UUIDField()
    rating = serializers.IntegerField(min_value=1, max_value=4)
    reviewed_at = serializers.DateTimeField()
    duration_ms = serializers.IntegerField(min_value=0, max_value=86_400_000, allow_null=True)
    state_before = serializers.ChoiceField(choices=STATE_VALUES)
    state_after = serializers.ChoiceField(choices=STATE_VALUES)
    before = SnapshotSerializer()
    after = documented_json({  # collection._after
        "type": "object", "maxProperties": MAX_AFTER_KEYS, "description": "What the review endpoint answered, stored as given",
        "additionalProperties": {"oneOf": [{"type": "string", "maxLength": 200}, {"type": "number"}, {"type": "boolean"}],
                                 "nullable": True}}, "ReviewAnswerField", serializers.DictField)()


READ_ONLY_TEXT = "Written by the export for people reading the file; ignored on import (the card's own text is used)"


class ImportCardSerializer(SnapshotSerializer):
    source_type = serializers.ChoiceField(choices=SourceType.choices)
    source_id = serializers.IntegerField(min_value=1)
    ordinal = serializers.IntegerField(min_value=0, max_value=99, required=False, default=0,
                                       help_text="Which card of its source: a cloze note's deletion number minus one "
                                                 "(0 when absent)")
    added_at = serializers.DateTimeField()
    front = serializers.CharField(required=False, help_text=READ_ONLY_TEXT)
    back = serializers.CharField(required=False, help_text=READ_ONLY_TEXT)
    reviews = serializers.ListField(child=ImportReviewSerializer(), max_length=10_000)


# --- outputs (documentation of the hand-built answers) --------------------------------------------------------


class CollectionFileSerializer(serializers.Serializer):
    """A learner's collection as the JSON export writes it: the very shape the JSON import takes back."""

    format = serializers.ChoiceField(choices=[FORMAT_NAME])
    version = serializers.ChoiceField(choices=[FORMAT_VERSION])
    exported_at = serializers.DateTimeField(required=False, help_text="When the file was written")
    cards = serializers.ListField(child=ImportCardSerializer(), max_length=20_000)


class CardStateSerializer(serializers.Serializer):
    card_id = serializers.IntegerField()
    state = serializers.IntegerField(help_text="0 new, 1 learning, 2 review, 3 relearning")
    state_name = serializers.CharField()
    step = serializers.IntegerField(allow_null=True)
    stability = serializers.FloatField(allow_null=True)
    difficulty = serializers.FloatField(allow_null=True)
    due = serializers.DateTimeField()
    last_review = serializers.DateTimeField(allow_null=True)
    reps = serializers.IntegerField()
    lapses = serializers.IntegerField()
    suspended = serializers.BooleanField()
    leech = serializers.BooleanField()
    buried_until = serializers.DateTimeField(allow_null=True)
    source_changed = serializers.BooleanField()


class ReviewOutputSerializer(CardStateSerializer):
    review_id = serializers.UUIDField()


class UndoOutputSerializer(CardStateSerializer):
    undone_review_id = serializers.UUIDField()


class CardExtrasSerializer(serializers.Serializer):
    card_id = serializers.IntegerField()
    flag = serializers.IntegerField(help_text="0 none, 1-7 Anki's flag colours")
    flag_name = serializers.CharField()
    note = serializers.CharField(allow_blank=True)


class SourceLinkSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="question, term or chapter")
    title = serializers.CharField()
    path = serializers.CharField(help_text="A page of this site")


class StudyCardSerializer(serializers.Serializer):
    card_id = serializers.IntegerField()
    source_type = serializers.CharField()
    source_id = serializers.IntegerField()
    front = serializers.CharField()
    back = serializers.CharField()
    front_html = serializers.CharField()
    back_html = serializers.CharField()
    state = serializers.IntegerField()
    state_name = serializers.CharField()
    due = serializers.DateTimeField()
    reps = serializers.IntegerField()
    lapses = serializers.IntegerField()
    leech = serializers.BooleanField()
    source_changed = serializers.BooleanField()
    flag = serializers.IntegerField()
    note = serializers.CharField(allow_blank=True)
    links = SourceLinkSerializer(many=True, help_text="The source question or term and its chapters")
    own = serializers.BooleanField(help_text="A card you wrote (editable)")


class DueCardSerializer(StudyCardSerializer):
    intervals = serializers.DictField(child=serializers.IntegerField(),
                                      help_text="Seconds until due for ratings '1'..'4'")


class CramCardSerializer(StudyCardSerializer):
    retrievability = serializers.FloatField(allow_null=True, help_text="Recall probability now; null: never studied")


class CramSerializer(serializers.Serializer):
    deck = serializers.CharField()
    title = serializers.CharField()
    reviewed_cards = serializers.IntegerField(help_text="Studied cards of the deck the weakest were chosen from")
    new_cards = serializers.IntegerField(help_text="Never-studied cards of the deck (counted with include_new)")
    cards = CramCardSerializer(many=True, help_text="Weakest first")


class DueCountsSerializer(serializers.Serializer):
    learning = serializers.IntegerField()
    review = serializers.IntegerField()
    new = serializers.IntegerField()


class TodaySerializer(serializers.Serializer):
    reviews = serializers.IntegerField(help_text="Reviews done today (your day)")
    again = serializers.IntegerField(help_text="Of them, rated Again")
    daily_goal = serializers.IntegerField(help_text="Your goal of reviews a day; 0: none")
    timed_reviews = serializers.IntegerField(help_text="Reviews today with a recorded time")
    time_ms = serializers.IntegerField(help_text="Their time in all")


class DueQueueSerializer(serializers.Serializer):
    now = serializers.DateTimeField()
    day_ends_at = serializers.DateTimeField()
    counts = DueCountsSerializer()
    done_today = serializers.IntegerField()
    today = TodaySerializer()
    next_learning_due = serializers.DateTimeField(allow_null=True)
    cards = DueCardSerializer(many=True)


class FlashcardDeckSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    kind = serializers.CharField()
    total = serializers.IntegerField()
    in_collection = serializers.IntegerField()
    new = serializers.IntegerField()
    learning = serializers.IntegerField()
    review_due = serializers.IntegerField()


class DeckNodeFields(serializers.Serializer):
    slug = serializers.CharField(help_text="Pass as ?deck= to the due queue to study this subtree")
    preset = PresetRefSerializer(allow_null=True, help_text="The options preset assigned to this deck, if any")
    title = serializers.CharField()
    kind = serializers.ChoiceField(choices=["all", "part", "chapter", "topic"])
    total = serializers.IntegerField(help_text="Cards in the deck")
    in_collection = serializers.IntegerField(help_text="Of them, in your collection")
    counts = DueCountsSerializer(help_text="What the due queue for this deck counts now (today's limits applied)")


class ChapterDeckNodeSerializer(DeckNodeFields):
    children = documented_json({"type": "array", "maxItems": 0, "items": {"$ref": "#/components/schemas/ChapterDeckNode"}},
                               "NoChildren")(help_text="Always empty")


class PartDeckNodeSerializer(DeckNodeFields):
    children = ChapterDeckNodeSerializer(many=True)


class RootDeckNodeSerializer(DeckNodeFields):
    children = PartDeckNodeSerializer(many=True, help_text="The parts under All cards; empty for a topic")


class DeckTreeLimitsSerializer(serializers.Serializer):
    new_left = serializers.IntegerField()
    reviews_left = serializers.IntegerField()


class DeckTreeSerializer(serializers.Serializer):
    day_ends_at = serializers.DateTimeField()
    limits = DeckTreeLimitsSerializer()
    decks = RootDeckNodeSerializer(many=True, help_text="All cards (parts → chapters below it), then the topics")


class BrowseRowSerializer(serializers.Serializer):
    card_id = serializers.IntegerField()
    source_type = serializers.CharField()
    source_id = serializers.IntegerField()
    front = serializers.CharField(help_text="At most 300 characters")
    back = serializers.CharField(help_text="At most 300 characters")
    state = serializers.IntegerField()
    state_name = serializers.CharField()
    due = serializers.DateTimeField()
    last_review = serializers.DateTimeField(allow_null=True)
    added_at = serializers.DateTimeField()
    reps = serializers.IntegerField()
    lapses = serializers.IntegerField()
    stability = serializers.FloatField(allow_null=True)
    difficulty = serializers.FloatField(allow_null=True)
    suspended = serializers.BooleanField()
    leech = serializers.BooleanField()
    retired = serializers.BooleanField()
    buried = serializers.BooleanField()
    flag = serializers.IntegerField(help_text="0 none, 1-7 Anki's flag colours")
    own = serializers.BooleanField(help_text="A card you wrote")
    anki_deck = serializers.CharField(allow_blank=True, help_text="Your own card's Anki deck, full name, when you "
                                                                  "imported it (empty for any other card)")


class BrowsePageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    results = BrowseRowSerializer(many=True)


class CardReviewEntrySerializer(serializers.Serializer):
    review_id = serializers.UUIDField()
    reviewed_at = serializers.DateTimeField()
    rating = serializers.IntegerField()
    duration_ms = serializers.IntegerField(allow_null=True)
    state_before = serializers.IntegerField()
    state_after = serializers.IntegerField()
    stability = serializers.FloatField(allow_null=True, help_text="FSRS stability (days) after the review")
    difficulty = serializers.FloatField(allow_null=True, help_text="FSRS difficulty after the review")
    due = serializers.DateTimeField(allow_null=True)
    retrievability_before = serializers.FloatField(allow_null=True, help_text="Recall probability when reviewed")


class CardDeckRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    kind = serializers.CharField()


class CardDetailSerializer(BrowseRowSerializer):
    front_html = serializers.CharField()
    back_html = serializers.CharField()
    decks = CardDeckRefSerializer(many=True)
    note = serializers.CharField(allow_blank=True)
    links = SourceLinkSerializer(many=True)
    history = CardReviewEntrySerializer(many=True)


class BulkOutputSerializer(serializers.Serializer):
    updated = serializers.IntegerField()
    skipped = serializers.IntegerField(help_text="Cards left as they were (a retired card stays suspended)")


class DeckAddOutputSerializer(serializers.Serializer):
    added = serializers.IntegerField()


class FlashcardDayCountSerializer(serializers.Serializer):
    date = serializers.DateField()
    count = serializers.IntegerField()


class TrueRetentionSerializer(serializers.Serializer):
    reviews = serializers.IntegerField()
    passed = serializers.IntegerField()
    retention = serializers.FloatField(allow_null=True)


class FlashcardStatsSerializer(serializers.Serializer):
    today = serializers.DateField()
    reviews_per_day = FlashcardDayCountSerializer(many=True)
    streak = serializers.IntegerField()
    true_retention = serializers.DictField(child=TrueRetentionSerializer())
    forecast = FlashcardDayCountSerializer(many=True)
    card_counts = serializers.DictField(child=serializers.IntegerField())
    average_retrievability = serializers.FloatField(allow_null=True)


class FitScoresSerializer(serializers.Serializer):
    log_loss = serializers.FloatField()
    rmse_bins = serializers.FloatField()


class OptimizationMetricsSerializer(serializers.Serializer):
    """optimization.fit's evaluation on the held-out reviews; empty until the job is done."""

    train_items = serializers.IntegerField(required=False)
    test_items = serializers.IntegerField(required=False)
    before = FitScoresSerializer(required=False, help_text="Your current parameters")
    after = FitScoresSerializer(required=False, help_text="The fitted parameters")


class OptimizationJobSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    preset = serializers.IntegerField(allow_null=True, help_text="The preset fitted; null: the Default")
    status = serializers.CharField()
    review_count = serializers.IntegerField()
    parameters = serializers.ListField(child=serializers.FloatField())
    metrics = OptimizationMetricsSerializer()
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ApkgDeckSerializer(serializers.Serializer):
    name = serializers.CharField(allow_blank=True, help_text="The Anki deck's full name, levels joined by ::")
    cards = serializers.IntegerField(help_text="Cards added from it")


class ApkgSkippedFileSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The file's name in the package")
    reason = serializers.CharField(help_text="Why it was left out")


class ApkgMediaSerializer(serializers.Serializer):
    images = serializers.IntegerField(help_text="Images the added cards show, now among your card images")
    skipped = serializers.IntegerField(help_text="Files the added cards show or play that were left out (sounds, "
                                                 "files that are no image we take, too large, over your quota)")
    skipped_files = ApkgSkippedFileSerializer(many=True, help_text="The first 100 of them, with why")


class ApkgImportOutputSerializer(serializers.Serializer):
    cards = serializers.IntegerField(help_text="Cards added (the package's own notes, and content cards of ours "
                                               "the collection did not hold)")
    updated = serializers.IntegerField(help_text="Cards the kit exported whose schedule, suspension and flag were "
                                                 "taken from the package (changed in Anki since)")
    reviews = serializers.IntegerField(help_text="Reviews added to their history (those the kit holds are not)")
    skipped = serializers.IntegerField(help_text="Cards of the package imported before, left as they are")
    decks = ApkgDeckSerializer(many=True, help_text="The Anki decks of the cards added, by name")
    media = ApkgMediaSerializer(help_text="The package's media the added cards use; a file left out never stops "
                                          "the import (its card keeps its text)")


class ImportOutputSerializer(serializers.Serializer):
    cards = serializers.IntegerField()
    reviews = serializers.IntegerField()


class CsvImportOutputSerializer(serializers.Serializer):
    cards = serializers.IntegerField(help_text="Cards added to your collection (the kit's, and your own new ones)")
    updated = serializers.IntegerField(help_text="Cards you held whose schedule the file's later review replaced")
    own_cards = serializers.IntegerField(help_text="Rows that became cards of your own")
    skipped = serializers.IntegerField(help_text="Rows naming an own card you have already (same front and back)")


class ImportJobQuerySerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=ImportFormat.choices,
                                     help_text="json: the kit's collection file (replaces your collection); apkg: an "
                                               "Anki package (adds its cards, brings the kit's own back in place); "
                                               "csv: rows of cards (the kit's CSV export, or Front and Back columns)")


class ImportJobErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class FileJobSerializer(serializers.Serializer):
    """What an import or an export job answers."""

    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    progress = serializers.FloatField(help_text="0 to 1")
    error = ImportJobErrorSerializer(allow_null=True, help_text="When failed: why")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(help_text="Poll this for the job's progress")


class ImportJobSerializer(FileJobSerializer):
    format = serializers.ChoiceField(choices=ImportFormat.choices)
    upload_bytes = serializers.IntegerField()
    result = documented_json(PolymorphicProxySerializer(
        component_name="ImportJobResult", serializers=[ImportOutputSerializer, ApkgImportOutputSerializer,
                                                                  CsvImportOutputSerializer],
        resource_type_field_name=None), "ImportJobResultField")(
        allow_null=True, help_text="When done: what was imported (the format's answer)")
    error = ImportJobErrorSerializer(allow_null=True, help_text="When failed: why; nothing was changed")


class ExportJobInputSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=ExportFormat.choices,
                                     help_text="json: the kit's collection file (imports back whole); csv: one "
                                               "Anki-ready CSV file; apkg: an Anki package with scheduling and reviews")


class ExportJobSerializer(FileJobSerializer):
    format = serializers.ChoiceField(choices=ExportFormat.choices)
    cards = serializers.IntegerField(help_text="Cards in the file (when done)")
    file_bytes = serializers.IntegerField(help_text="The file's size (when done)")
    filename = serializers.CharField(help_text="The name the download is saved under")
    file_url = serializers.CharField(allow_null=True, help_text="When done: download the file here (kept a day)")
    expires_at = serializers.DateTimeField(allow_null=True, help_text="When done: when the file is deleted")
