"""Unknown fields in a request body are errors, everywhere in the API: a misspelt knob (``long_prefil_token_threshold``)
or a field the endpoint does not take (``dtype`` on step-time) is answered 400 naming it, never a result computed
without it.

DRF ignores keys a serializer has no field for, and has no setting to refuse them, so ``install()`` (run once, when
the core app is ready) makes every ``Serializer`` refuse them, nested ones included (``workload.prompt_tokenz``).
Read-only fields are known and stay ignored, as DRF does, and so are the model's own fields on a model serializer
(a row read, changed and written back carries ``updated_at``). Only JSON objects are checked: query strings and
multipart forms (``QueryDict``) carry what browsers and proxies add.
"""

from collections.abc import Mapping

from django.http import QueryDict
from rest_framework import serializers

UNKNOWN = "Unknown field; this endpoint does not take it."


def unknown_fields(serializer: serializers.Serializer, data) -> list[str]:
    if not isinstance(data, Mapping) or isinstance(data, QueryDict):
        return []
    known = set(serializer.fields)
    model = getattr(getattr(serializer, "Meta", None), "model", None)
    if isinstance(serializer, serializers.ModelSerializer) and model is not None:
        known |= {field.name for field in model._meta.get_fields()}
    return sorted(str(key) for key in data if key not in known)


def install() -> None:
    if getattr(serializers.Serializer, "_refuses_unknown_fields", False):
        return
    lenient = serializers.Serializer.to_internal_value

    def to_internal_value(self, data):
        unknown = unknown_fields(self, data)
        if unknown:
            raise serializers.ValidationError({name: [UNKNOWN] for name in unknown})
        return lenient(self, data)

    serializers.Serializer.to_internal_value = to_internal_value
    serializers.Serializer._refuses_unknown_fields = True
