"""OpenAPI post-processing: every operation documents the error answers the API can give it.

Any endpoint can be throttled (429), meet a down database (503), or be asked for a missing page (404); those that
take a body can get malformed input (400, 413). The body is always the one error shape of apps.core.errors.
"""

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {"type": "string"},
        "detail": {"type": "string"},
        "fields": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
    },
    "required": ["error", "detail", "fields"],
}
DESCRIPTIONS = {
    "400": "Invalid input; `fields` names each offending field",
    "401": "Authentication required",
    "403": "Not allowed (or CSRF check failed)",
    "404": "Not found",
    "405": "Method not allowed",
    "409": "Conflicts with the current state",
    "413": "Request body too large",
    "429": "Throttled; retry later",
    "503": "A required service (database or job queue) is unavailable",
}
ALWAYS = ("400", "401", "403", "404", "405", "429", "503")
WITH_BODY = ("409", "413")


def add_error_responses(result, generator, request, public):
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["ErrorBody"] = ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/ErrorBody"}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            codes = ALWAYS + (WITH_BODY if method != "get" else ())
            for code in codes:
                if code not in responses:
                    responses[code] = {"description": DESCRIPTIONS[code], "content": {"application/json": {"schema": reference}}}
    return result
