"""Request ids for logs, and a clean 503 when the database is unreachable."""

import contextvars
import logging
import uuid

from django.db import InterfaceError, OperationalError
from django.http import JsonResponse

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
logger = logging.getLogger(__name__)


class RequestIdLogFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


class RequestIdMiddleware:
    """Accepts a sane incoming X-Request-ID or makes one, and echoes it back."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if 0 < len(incoming) <= 64 and incoming.isascii() and incoming.isprintable() else uuid.uuid4().hex
        request.request_id = request_id
        token = request_id_var.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        response["X-Request-ID"] = request_id
        return response


class DatabaseUnavailableMiddleware:
    """Turns a lost database connection into a 503 JSON answer instead of a stack trace."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, (OperationalError, InterfaceError)):
            logger.warning("database unavailable: %s", exception)
            return database_unavailable_response()
        return None


def database_unavailable_response() -> JsonResponse:
    response = JsonResponse(
        {"error": "service_unavailable", "detail": "The database is unavailable; try again shortly.", "fields": {}},
        status=503,
    )
    response["Retry-After"] = "5"
    return response
