import hashlib
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

from django.conf import settings
from django.http import HttpResponse, HttpResponseNotModified, JsonResponse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema, inline_serializer
from drf_spectacular.views import SpectacularAPIView
from rest_framework import serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes, throttle_classes
from rest_framework.response import Response

from apps.core.services import broker_status, cache_status, database_status
from apps.core.spa import page_exists

_HEALTH_FIELDS = {
    "status": serializers.CharField(),
    "database": serializers.CharField(),
    "broker": serializers.CharField(),
    "cache": serializers.CharField(),
}


@extend_schema(
    responses={
        200: inline_serializer("Health", _HEALTH_FIELDS),
        503: inline_serializer("HealthDown", _HEALTH_FIELDS),
    }
)
@api_view(["GET"])
@authentication_classes([])
@permission_classes([])
@throttle_classes([])
def health(request):
    """Each dependency reported separately; only the database (the core of the service) makes it a 503.

    A down broker stops background jobs and a down cache makes throttles per-process; both leave reading,
    practice, flashcards and the synchronous simulators working, so the status stays 200 ("degraded").
    """
    database = database_status()
    broker = broker_status()
    cache = cache_status()
    healthy = database == "ok" and broker != "unavailable" and cache != "unavailable"
    body = {"status": "ok" if healthy else "degraded", "database": database, "broker": broker, "cache": cache}
    return Response(body, status=200 if database == "ok" else 503)


@require_GET
def ping(request):
    """The cheapest possible answer (plain Django: no DRF, database, auth or throttle): the load-test ceiling."""
    return JsonResponse({"ok": True})


@ensure_csrf_cookie
def spa_index(request, path: str = ""):
    """Serves the built single-page app; the client router takes it from there.

    A path no page of the client knows (frontend/src/routes.json, the list the client itself uses), or a page whose
    chapter, term or question is not there for this reader, gets the same shell with HTTP 404, and the shell says so. The page also tells the client whether this browser is signed in, so an
    anonymous visit does not have to ask the API (and log a 401) to find out.
    """
    index = settings.FRONTEND_DIST / "index.html"
    if not index.exists():
        return HttpResponse(
            "<h1>Front end not built</h1><p>Run <code>make run</code> (it builds frontend/).</p>", status=503
        )
    session = "signed-in" if request.user.is_authenticated else "anonymous"
    html = _index_html(str(index), index.stat().st_mtime_ns).replace(
        "<head>", f'<head>\n    <meta name="session" content="{session}" />', 1
    )
    return HttpResponse(html, status=200 if page_exists(path, request.user) else 404, content_type="text/html; charset=utf-8")


@lru_cache(maxsize=4)
def _index_html(path: str, mtime_ns: int) -> str:
    return Path(path).read_text(encoding="utf-8")


class CachedSchemaView(SpectacularAPIView):
    """The schema is a function of the code, so each process generates and renders it once per format and serves
    the bytes from memory after that (generating costs about 0.5 s of CPU and rendering YAML 0.25 s, on every
    call before). An ETag lets a client keep its copy (304)."""

    rendered: ClassVar[dict[tuple, tuple[bytes, str, str]]] = {}

    @extend_schema(exclude=True)  # the document does not describe itself (SERVE_INCLUDE_SCHEMA is off)
    def get(self, request, *args, **kwargs):
        renderer, media_type = request.accepted_renderer, request.accepted_media_type
        key = (renderer.format, media_type, request.version, request.query_params.get("lang"))
        if key not in self.rendered:
            response = super().get(request, *args, **kwargs)
            body = renderer.render(response.data, media_type, {"request": request, "response": response, "view": self})
            content_type = f"{media_type}; charset={renderer.charset}" if renderer.charset else media_type
            self.rendered[key] = (body, content_type, response["Content-Disposition"])
        body, content_type, disposition = self.rendered[key]
        etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
        if etag in request.headers.get("If-None-Match", ""):
            return HttpResponseNotModified(headers={"ETag": etag})
        return HttpResponse(body, content_type=content_type, headers={"ETag": etag, "Content-Disposition": disposition})
