from rest_framework import serializers

from apps.core.serializers import (
    ChapterLinkSerializer,
    ContentStatusField,
    SimulatorLinkSerializer,
    TermRefSerializer,
    slug_list,
)
from apps.courses.models import Chapter, Level, ProgressStatus
from apps.courses.services import MAX_MERGE_CHAPTERS


class PartSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()
    order = serializers.IntegerField()
    summary = serializers.CharField()
    chapter_count = serializers.IntegerField()
    understood_count = serializers.IntegerField(allow_null=True, help_text="Null when signed out")


class ChapterListSerializer(serializers.ModelSerializer):
    part = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    status = serializers.SerializerMethodField()

    class Meta:
        model = Chapter
        fields = ["slug", "title", "part", "order", "summary", "minutes", "level", "status"]

    def get_status(self, chapter) -> str | None:
        return self.context.get("progress", {}).get(chapter.slug)

    def to_representation(self, chapter) -> dict:
        # Same fields as the declared ones, without DRF's per-field machinery (lists of every chapter).
        return {
            "slug": chapter.slug,
            "title": chapter.title,
            "part": chapter.part.slug,
            "order": chapter.order,
            "summary": chapter.summary,
            "minutes": chapter.minutes,
            "level": chapter.level,
            "status": self.get_status(chapter),
        }


class KeyNumberSerializer(serializers.Serializer):
    label = serializers.CharField()
    value = serializers.CharField()
    unit = serializers.CharField(required=False)
    source = serializers.CharField(required=False)


class QuestionRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.SlugField()
    kind = serializers.CharField()
    level = serializers.CharField()


class PartRefSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()


class ChapterDetailSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()
    part = PartRefSerializer()
    order = serializers.IntegerField()
    summary = serializers.CharField()
    minutes = serializers.IntegerField()
    level = serializers.ChoiceField(choices=Level.choices)
    objectives = serializers.ListField(child=serializers.CharField())
    key_numbers = KeyNumberSerializer(many=True)
    body_html = serializers.CharField()
    prerequisites = ChapterLinkSerializer(many=True)
    simulators = SimulatorLinkSerializer(many=True)
    glossary_terms = TermRefSerializer(many=True)
    questions = QuestionRefSerializer(many=True)
    previous = ChapterLinkSerializer(allow_null=True)
    next = ChapterLinkSerializer(allow_null=True)
    status = serializers.ChoiceField(choices=ProgressStatus.choices, allow_null=True)


class ProgressInputSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ProgressStatus.choices, allow_null=True)


class ProgressOutputSerializer(serializers.Serializer):
    chapter = serializers.SlugField()
    status = serializers.ChoiceField(choices=ProgressStatus.choices, allow_null=True)


class PartProgressSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()
    understood = serializers.IntegerField()
    total = serializers.IntegerField()


class ProgressSummarySerializer(serializers.Serializer):
    understood = serializers.IntegerField()
    total = serializers.IntegerField()
    parts = PartProgressSerializer(many=True)
    chapters = serializers.DictField(child=serializers.CharField(), help_text="Status by chapter slug")


class MergeInputSerializer(serializers.Serializer):
    chapters = serializers.DictField(
        child=serializers.ChoiceField(choices=ProgressStatus.choices), allow_empty=True,
        help_text=f"Status by chapter slug, at most {MAX_MERGE_CHAPTERS} entries",
    )

    def validate_chapters(self, value: dict) -> dict:
        if len(value) > MAX_MERGE_CHAPTERS:
            raise serializers.ValidationError(f"At most {MAX_MERGE_CHAPTERS} chapters can be merged at once.")
        if any(len(slug) > 120 for slug in value):
            raise serializers.ValidationError("Chapter slugs are at most 120 characters.")
        return value


class MergeOutputSerializer(serializers.Serializer):
    merged = serializers.ListField(child=serializers.CharField())
    unchanged = serializers.ListField(child=serializers.CharField())
    unknown = serializers.ListField(child=serializers.CharField())
    progress = ProgressSummarySerializer()


class ConceptNodeSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()
    part = serializers.SlugField()
    order = serializers.IntegerField(help_text="Position in curriculum order")
    level = serializers.CharField()
    status = serializers.CharField(allow_null=True)


class ConceptEdgeSerializer(serializers.Serializer):
    source = serializers.SlugField(help_text="The prerequisite")
    target = serializers.SlugField(help_text="The chapter that needs it")


class ConceptMapSerializer(serializers.Serializer):
    nodes = ConceptNodeSerializer(many=True)
    edges = ConceptEdgeSerializer(many=True)


class ConceptPathQuerySerializer(serializers.Serializer):
    to = serializers.SlugField(max_length=120, help_text="Target chapter slug")


class ConceptPathSerializer(serializers.Serializer):
    to = serializers.SlugField()
    path = ChapterListSerializer(many=True)


# --- authoring (authors and superusers; field names as in the fixture front matter) -------------------------


MAX_SOURCES = 30
MAX_SOURCE_LENGTH = 500


class SourceField(serializers.CharField):
    """One source: a non-blank string (no number or object taken for one), at most MAX_SOURCE_LENGTH characters."""

    default_error_messages = {"not_a_string": "Each source must be a string, not {kind}."}

    def __init__(self, **kwargs):
        super().__init__(max_length=MAX_SOURCE_LENGTH, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string", kind=type(data).__name__)
        return super().to_internal_value(data)


def sources_field() -> serializers.ListField:
    """``sources`` as in the fixtures: one string per source (a file and function at a release, a paper section, a
    datasheet), e.g. 'vLLM v0.33.0, vllm/config/cache.py: CacheConfig.gpu_memory_utilization'."""
    return serializers.ListField(
        child=SourceField(), required=False, max_length=MAX_SOURCES,
        help_text=f"Where its facts come from, one string each (at most {MAX_SOURCES}, each at most "
                  f"{MAX_SOURCE_LENGTH} characters): a file and function at a release, a paper section, a datasheet")


class KeyNumberWriteSerializer(serializers.Serializer):
    label = serializers.CharField(max_length=300)
    value = serializers.CharField(max_length=100)
    unit = serializers.CharField(max_length=100, required=False, allow_blank=True)
    source = serializers.CharField(max_length=2000, required=False, allow_blank=True)


class ChapterWriteSerializer(serializers.Serializer):
    """A chapter as authored: the front matter fields of fixtures/chapters/<part>/<NN>-<slug>.md plus `body`."""

    slug = serializers.SlugField(max_length=120)
    title = serializers.CharField(max_length=200)
    part = serializers.SlugField(max_length=120, help_text="Part slug")
    order = serializers.IntegerField(min_value=1, max_value=10_000, help_text="Position within the part (unique)")
    summary = serializers.CharField(max_length=5000)
    minutes = serializers.IntegerField(min_value=1, max_value=600, required=False)
    level = serializers.ChoiceField(choices=Level.choices, required=False)
    objectives = serializers.ListField(child=serializers.CharField(max_length=500), required=False, max_length=30)
    key_numbers = KeyNumberWriteSerializer(many=True, required=False, max_length=30)
    body = serializers.CharField(trim_whitespace=False, help_text="Markdown, at most 200 KB")
    prerequisites = slug_list("Chapter slugs read first (no cycles)")
    simulators = serializers.ListField(child=serializers.CharField(max_length=40), required=False, max_length=20,
                                       help_text="Simulator names, e.g. kv-cache")
    glossary = slug_list("Glossary term slugs the chapter uses")
    sources = sources_field()
    status = ContentStatusField()


class ChapterAuthoringSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()
    part = serializers.SlugField()
    order = serializers.IntegerField()
    summary = serializers.CharField()
    minutes = serializers.IntegerField()
    level = serializers.CharField()
    objectives = serializers.ListField(child=serializers.CharField())
    key_numbers = KeyNumberSerializer(many=True)
    body = serializers.CharField()
    body_html = serializers.CharField()
    prerequisites = serializers.ListField(child=serializers.SlugField())
    simulators = serializers.ListField(child=serializers.CharField())
    glossary = serializers.ListField(child=serializers.SlugField())
    sources = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()
    updated_at = serializers.DateTimeField()
    warnings = serializers.ListField(child=serializers.CharField(), help_text="Allowed but suspicious")
