"""Health probes for the database and the Celery broker."""

from django.conf import settings
from django.db import connection


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
            client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
            client.ping()
        except Exception:  # connection refused, timeout, auth: all mean unavailable
            return "unavailable"
        return "ok"
    return "unknown"


def ensure_broker_available() -> None:
    """Raises a 503 API error when background jobs cannot be queued."""
    from apps.core.errors import ServiceUnavailable

    if broker_status() == "unavailable":
        raise ServiceUnavailable("The job queue (Redis) is unavailable; background jobs cannot start right now.")
