"""Serializers that several apps share: links between content items and the authoring status field."""

from rest_framework import serializers

from apps.core.models import Status


class ChapterLinkSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()


class SimulatorLinkSerializer(serializers.Serializer):
    name = serializers.CharField()
    url = serializers.CharField()


class TermRefSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    term = serializers.CharField()
    definition = serializers.CharField()


def slug_list(help_text: str, max_length: int = 200) -> serializers.ListField:
    return serializers.ListField(child=serializers.SlugField(max_length=120), required=False, max_length=max_length,
                                 help_text=help_text)


class ContentStatusField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "draft (authors only) or published; new items default to draft")
        super().__init__(choices=Status.choices, required=False, **kwargs)
