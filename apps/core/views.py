from django.conf import settings
from django.http import FileResponse, HttpResponse, JsonResponse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes, throttle_classes
from rest_framework.response import Response

from apps.core.services import broker_status, database_status


@extend_schema(
    responses={
        200: inline_serializer("Health", {"status": serializers.CharField(), "database": serializers.CharField(), "broker": serializers.CharField()}),
        503: inline_serializer("HealthDown", {"status": serializers.CharField(), "database": serializers.CharField(), "broker": serializers.CharField()}),
    }
)
@api_view(["GET"])
@authentication_classes([])
@permission_classes([])
@throttle_classes([])
def health(request):
    """Database state decides the status code; the broker is reported, never fatal."""
    database = database_status()
    body = {"status": "ok" if database == "ok" else "degraded", "database": database, "broker": broker_status()}
    return Response(body, status=200 if database == "ok" else 503)


@require_GET
def ping(request):
    """The cheapest possible answer (plain Django: no DRF, database, auth or throttle): the load-test ceiling."""
    return JsonResponse({"ok": True})


@ensure_csrf_cookie
def spa_index(request, path: str = ""):
    """Serves the built single-page app; the client router takes it from there."""
    index = settings.FRONTEND_DIST / "index.html"
    if not index.exists():
        return HttpResponse(
            "<h1>Front end not built</h1><p>Run <code>make run</code> (it builds frontend/).</p>", status=503
        )
    return FileResponse(index.open("rb"), content_type="text/html")
