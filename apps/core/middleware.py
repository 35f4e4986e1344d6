"""Request ids for logs, a clean 503 when the database is unreachable, and conditional GET on every API read."""

import contextvars
import logging
import uuid

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.urls import NoReverseMatch, reverse

from apps.core import metrics
from apps.core.checks import proxy_header_watch
from apps.core.conditional import conditional
from apps.core.throttling import check_login_throttles

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
logger = logging.getLogger(__name__)


class RequestIdLogFilter(logging.Filter):
    """Stamps each record with the request id: the one in force, or, for lines Django writes after the
    middleware has returned (the "Not Found"/"Bad Request" warnings of django.request), the request's own."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = request_id_var.get()
        if request_id == "-":
            request_id = getattr(getattr(record, "request", None), "request_id", None) or "-"
        record.request_id = request_id
        return True


class RequestIdMiddleware:
    """Accepts a sane incoming X-Request-ID or makes one, and echoes it back; notes a proxy header that disagrees
    with the proxy settings (apps.core.checks)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if 0 < len(incoming) <= 64 and incoming.isascii() and incoming.isprintable() else uuid.uuid4().hex
        request.request_id = request_id
        proxy_header_watch.seen(request)
        token = request_id_var.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        response["X-Request-ID"] = request_id
        return response


class AdminLoginThrottleMiddleware:
    """Puts the admin sign-in form behind the same per-address and per-account limits as the API login."""

    def __init__(self, get_response):
        self.get_response = get_response
        self._login_path: str | None = None

    def login_path(self) -> str | None:
        if self._login_path is None:
            try:
                self._login_path = reverse("admin:login")
            except NoReverseMatch:
                self._login_path = ""
        return self._login_path

    def __call__(self, request):
        if request.method == "POST" and self.login_path() and request.path == self.login_path():

            wait = check_login_throttles(request)
            if wait is not None:
                logger.warning("admin sign-in throttled")
                response = HttpResponse(
                    "<h1>Too many sign-in attempts</h1><p>Wait a while and try again.</p>", status=429)
                response["Retry-After"] = str(max(1, int(wait + 0.999)))
                return response
        return self.get_response(request)


class MetricsAccessMiddleware:
    """Answers /metrics only to a scraper with the bearer token or from an allowed address (403 otherwise), and
    aggregates over gunicorn workers when PROMETHEUS_MULTIPROC_DIR is set (apps.core.metrics)."""

    PATH = "/metrics"

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path != self.PATH:
            return self.get_response(request)

        if not metrics.metrics_allowed(request):
            logger.warning("metrics scrape refused")
            return HttpResponse("Forbidden\n", status=403, content_type="text/plain")
        if request.method not in ("GET", "HEAD"):
            return HttpResponse(status=405, headers={"Allow": "GET, HEAD"})
        body, content_type = metrics.render_metrics()
        return HttpResponse(body, content_type=content_type)


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


class ConditionalApiMiddleware:
    """Every JSON answer to a GET or HEAD under /api/ gets a strong ETag (the view's, when it made a cheaper one
    from what the body depends on; else a hash of the body), ``Vary`` and ``Cache-Control: no-cache``, and a
    request whose ``If-None-Match`` names it gets a 304 (``apps.core.conditional``): public and private reads
    alike, with no view left out."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith("/api/") or not response.get("Content-Type", "").startswith("application/json"):
            return response
        return conditional(request, response)


def database_unavailable_response() -> JsonResponse:
    response = JsonResponse(
        {"error": "service_unavailable", "detail": "The database is unavailable; try again shortly.", "fields": {}},
        status=503,
    )
    response["Retry-After"] = "5"
    return response
