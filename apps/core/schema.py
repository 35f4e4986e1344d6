"""OpenAPI generation: who may call each operation, and the error answers every operation can give.

`AutoSchema` documents security per operation: anonymous-only endpoints (no authentication at all) need nothing,
public reads take a token or a session but need neither (`{}` first: optional), everything else needs one of them.

`RequestRules` writes the cross-field rules a serializer's `validate()` enforces (exactly one of two fields, at
least one of several) into its request schema, from the serializer's `request_rules()`.

`add_error_responses` (a post-processing hook) gives every 4xx/5xx answer the one error body of apps.core.errors.
Any endpoint can be throttled (429), meet a down database (503), or be asked for a missing page (404); those that
take a body can get malformed input (400, 413) or conflict with the current state (409).
"""

from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import get_class
from rest_framework import permissions, serializers

from apps.core.permissions import IsAuthorOrReadOnly

ERROR_SCHEMA = {
    "type": "object",
    "description": "The one error body: a machine-readable code, a sentence, and the messages for each bad field.",
    "properties": {
        "error": {"type": "string", "description": "Machine-readable code, e.g. `validation_error`, `not_found`"},
        "detail": {"type": "string", "description": "A sentence for people"},
        "fields": {
            "type": "object",
            "description": "Messages per offending field (dotted paths for nested input); empty when none",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["error", "detail", "fields"],
}
DESCRIPTIONS = {
    "400": "Invalid input; `fields` names each offending field",
    "401": "Authentication required (or the credentials sent are invalid)",
    "403": "Not allowed (or CSRF check failed)",
    "404": "Not found",
    "405": "Method not allowed",
    "409": "Conflicts with the current state",
    "413": "Request body too large",
    "429": "Throttled; retry later",
    "503": "A required service (database or job queue) is unavailable",
}
ALWAYS = ("400", "403", "404", "405", "429", "503")
WITH_BODY = ("409", "413")
HTTP_METHODS = {"get", "post", "put", "patch", "delete"}
ANONYMOUS = {}  # the empty security requirement: no credentials needed


def given(name: str, nullable: bool = False) -> dict:
    """The field is present (and, for a nullable field, not null: validators count null as not given)."""
    return {"required": [name], **({"properties": {name: {"not": {"enum": [None]}}}} if nullable else {})}


def exactly_one(*names: str) -> dict:
    return {"oneOf": [given(name) for name in names]}


def at_most_one(*names: str) -> dict:
    return {"not": {"anyOf": [{"allOf": [given(a), given(b)]} for i, a in enumerate(names) for b in names[i + 1:]]}}


def at_least_one(*branches: dict) -> dict:
    return {"anyOf": list(branches)}


class RequestRules(OpenApiSerializerExtension):
    """A serializer with `request_rules()` (a classmethod returning JSON-schema dicts) gets them as `allOf` of its
    request schema; responses are left as they are."""

    target_class = serializers.BaseSerializer

    @classmethod
    def _matches(cls, target) -> bool:
        return hasattr(get_class(target), "request_rules")

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        rules = get_class(self.target).request_rules()
        if direction == "request" and rules:
            schema["allOf"] = rules
        return schema


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema with security that says what an anonymous caller may do."""

    def get_auth(self):
        if not self.view.get_authenticators():
            return [ANONYMOUS]  # nothing would be read from a token or session; add_error_responses writes `[]`
        auths = [auth for auth in super().get_auth() if auth != ANONYMOUS]
        if self._anonymous_allowed():
            auths.insert(0, ANONYMOUS)
        return auths

    def _anonymous_allowed(self) -> bool:
        perms = [permission.__class__ for permission in self.view.get_permissions()]
        if not perms or permissions.AllowAny in perms:
            return True
        read = self.method in permissions.SAFE_METHODS
        return read and all(p in (permissions.IsAuthenticatedOrReadOnly, IsAuthorOrReadOnly) for p in perms)


def add_error_responses(result, generator, request, public):
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["ErrorBody"] = ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/ErrorBody"}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in HTTP_METHODS:
                continue
            security = operation.get("security") or []
            no_credentials = all(requirement == ANONYMOUS for requirement in security)
            if no_credentials:
                # Written out as "no security" (an empty list), which every client generator reads as anonymous.
                operation["security"] = []
            responses = operation.setdefault("responses", {})
            codes = ALWAYS + (WITH_BODY if method != "get" else ()) + (() if no_credentials else ("401",))
            for code in codes:
                responses.setdefault(code, {"description": DESCRIPTIONS[code]})
            for code, response in responses.items():
                if code[:1] in {"4", "5"} and not response.get("content"):
                    response["content"] = {"application/json": {"schema": reference}}
            operation["responses"] = dict(sorted(responses.items()))
    return result
