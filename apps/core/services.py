"""Health probes for the database, the Celery broker and the shared cache."""

from django.conf import settings
from django.db import connection

from apps.core.exceptions import Unavailable


def database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:  # any driver error means "not answering"
        return "unavailable"
    return "ok"


def broker_status() -> str:
    url = settings.CELERY_BROKER_URL
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "eager"
    if url.startswith("filesystem"):
        folder = settings.CELERY_BROKER_FILESYSTEM_DIR
        try:
            for sub in ("queue", "processed"):
                (folder / sub).mkdir(parents=True, exist_ok=True)
        except OSError:
            return "unavailable"
        return "ok"
    if url.startswith(("redis://", "rediss://")):
        import redis

        try:
            timeout = getattr(settings, "BROKER_CHECK_TIMEOUT_S", 0.1)
            client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
            try:
                client.ping()
            finally:
                client.close()
        except Exception:  # connection refused, timeout, auth: all mean unavailable
            return "unavailable"
        return "ok"
    return "unknown"


def cache_status() -> str:
    """"ok", "unavailable" (requests are then served from a per-process cache), or "local" (no shared cache)."""
    from django.core.cache import caches
    from django.core.cache.backends.dummy import DummyCache
    from django.core.cache.backends.locmem import LocMemCache

    backend = caches["default"]
    probe = getattr(backend, "status", None)
    if callable(probe):
        return probe()
    if isinstance(backend, (LocMemCache, DummyCache)):
        return "local"
    try:
        backend.get("llmkit:health-probe")
    except Exception:  # any backend error means "not answering"
        return "unavailable"
    return "ok"


def ensure_broker_available() -> None:
    """Raises Unavailable (a 503) when background jobs cannot be queued."""
    if broker_status() == "unavailable":
        raise Unavailable("The job queue (Redis) is unavailable; background jobs cannot start right now.")
