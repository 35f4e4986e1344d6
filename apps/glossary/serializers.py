from rest_framework import serializers

from apps.core.serializers import (
    ChapterLinkSerializer,
    ContentStatusField,
    SimulatorLinkSerializer,
    TermRefSerializer,
    slug_list,
)
from apps.glossary.models import Term


class TermListSerializer(serializers.ModelSerializer):
    aliases = serializers.ListField(child=serializers.CharField(), help_text="Abbreviations and other names, e.g. TTFT")

    class Meta:
        model = Term
        fields = ["slug", "term", "aliases", "definition"]

    def to_representation(self, term) -> dict:
        # Same fields as declared, without DRF's per-field machinery (clients load up to 500 terms at once).
        return {"slug": term.slug, "term": term.term, "aliases": term.aliases, "definition": term.definition}


class TermQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, required=False, allow_blank=True,
                              help_text="Substring of the term or an alias")


class TermDetailSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    term = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    definition = serializers.CharField()
    explanation_html = serializers.CharField(help_text="Sanitized HTML")
    related = TermRefSerializer(many=True)
    chapters = ChapterLinkSerializer(many=True)
    simulators = SimulatorLinkSerializer(many=True)


class TermWriteSerializer(serializers.Serializer):
    """A glossary term as authored: the fields of a fixtures/glossary/*.yaml entry."""

    slug = serializers.SlugField(max_length=120)
    term = serializers.CharField(max_length=200)
    aliases = serializers.ListField(child=serializers.CharField(max_length=200), required=False, max_length=30)
    definition = serializers.CharField(max_length=2000)
    explanation = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False, help_text="Markdown")
    related = slug_list("Other glossary term slugs")
    chapters = slug_list("Chapter slugs where the term is introduced or used")
    simulators = serializers.ListField(child=serializers.CharField(max_length=40), required=False, max_length=20)
    status = ContentStatusField()


class TermAuthoringSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    term = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    definition = serializers.CharField()
    explanation = serializers.CharField(allow_blank=True)
    related = serializers.ListField(child=serializers.SlugField())
    chapters = serializers.ListField(child=serializers.SlugField())
    simulators = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()
    updated_at = serializers.DateTimeField()
    warnings = serializers.ListField(child=serializers.CharField())
