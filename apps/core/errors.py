"""One error body for every API failure: {"error": code, "detail": message, "fields": {name: [messages]}}."""

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import DataError, InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from apps.core.exceptions import DomainError
from apps.core.middleware import database_unavailable_response

logger = logging.getLogger(__name__)


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    """Turns DRF's nested error detail into {"a.b.0": ["message"]} so every field is named."""
    fields: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if key == "non_field_errors" and prefix:
                name = prefix
            for sub_name, messages in _flatten(value, name).items():
                fields.setdefault(sub_name, []).extend(messages)
    elif isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            fields[prefix or "non_field_errors"] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                if item:
                    fields.update(_flatten(item, f"{prefix}.{index}" if prefix else str(index)))
    else:
        fields[prefix or "non_field_errors"] = [str(detail)]
    return fields


def error_body(code: str, detail: str, fields: dict | None = None) -> dict:
    return {"error": code, "detail": detail, "fields": fields or {}}


def domain_error_response(exc: DomainError) -> Response:
    detail = f"Invalid input: {exc.field}: {exc.message}" if exc.field and exc.status_code == 400 else exc.message
    return json_error(exc.code, detail, exc.status_code, exc.fields)


def api_exception_handler(exc, context):
    if isinstance(exc, DomainError):
        return domain_error_response(exc)
    if isinstance(exc, (OperationalError, InterfaceError)):
        return database_unavailable_response()
    if isinstance(exc, DataError):  # e.g. a NUL character in a URL slug: bad input, not a server fault
        return json_error("bad_request", "The request holds a value that cannot be stored or looked up.", 400)
    if isinstance(exc, RequestDataTooBig):  # DRF reads request.body, where Django enforces the size limit
        limit = f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes"
        return json_error("payload_too_large", f"Request body too large (at most {limit}).", 413)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first = next(iter(fields), "")
        message = f"Invalid input: {first}: {fields[first][0]}" if first else "Invalid input."
        response.data = error_body("validation_error", message, fields)
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(exc, "default_code", "error")
        if isinstance(detail, dict):
            response.data = error_body(code, "Invalid request.", _flatten(detail))
        else:
            response.data = error_body(getattr(detail, "code", code) or code, str(detail))
    return response


def json_error(code: str, detail: str, status_code: int, fields: dict | None = None) -> Response:
    return Response(error_body(code, detail, fields), status=status_code)


def api_or_html_handler(status_code: int, code: str, detail: str):
    """Django-level handlers (404/500/400/403) that answer JSON under /api/."""

    @csrf_exempt
    def handler(request, exception=None, **kwargs):
        return JsonResponse(error_body(code, detail), status=status_code)

    return handler


def csrf_failure(request, reason=""):
    """CSRF rejections answer JSON under /api/ (the admin keeps Django's page)."""
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("csrf_failed", f"CSRF check failed: {reason}"), status=403)
    from django.views.csrf import csrf_failure as django_csrf_failure

    return django_csrf_failure(request, reason=reason)
