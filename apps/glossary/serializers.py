from rest_framework import serializers

from apps.courses.serializers import ChapterLinkSerializer, SimulatorLinkSerializer, TermRefSerializer
from apps.glossary.models import Term


class TermListSerializer(serializers.ModelSerializer):
    class Meta:
        model = Term
        fields = ["slug", "term", "aliases", "definition"]


class TermQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, required=False, allow_blank=True)


class TermDetailSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    term = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    definition = serializers.CharField()
    explanation_html = serializers.CharField(help_text="Sanitized HTML")
    related = TermRefSerializer(many=True)
    chapters = ChapterLinkSerializer(many=True)
    simulators = SimulatorLinkSerializer(many=True)
