"""Serializers that several apps share: links between content items, the authoring status field, and JSON columns
documented with their shape."""

from drf_spectacular.utils import extend_schema_field
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


def documented_json(schema, name: str, base: type[serializers.Field] = serializers.JSONField) -> type:
    """A field that reads and writes as `base` (by default a JSON column answered as stored), documented with
    `schema` (a serializer, a field or an OpenAPI dict): the shape the code that checks or writes it gives it."""
    return extend_schema_field(schema)(type(name, (base,), {"__doc__": documented_json.__doc__}))
