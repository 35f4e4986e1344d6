"""Prometheus gauges computed at scrape time: Celery queue depth and background-job outcomes.

Request latency and counts come from django-prometheus middleware; these add what it cannot see.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os

from django.conf import settings
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import GaugeMetricFamily

from apps.core.addresses import client_address

logger = logging.getLogger(__name__)

# Degraded dependencies: the shared cache (throttle counters) falling back to a per-process cache.
CACHE_ERRORS = Counter("llmkit_cache_errors", "Shared cache operations that failed and were served locally", ["error"])
CACHE_AVAILABLE = Gauge("llmkit_cache_available", "1 while the shared cache answers, 0 during an outage",
                        multiprocess_mode="livemin")
CACHE_AVAILABLE.set(1)


def cache_error(error: str) -> None:
    CACHE_ERRORS.labels(error=error).inc()


def cache_available(up: bool) -> None:
    CACHE_AVAILABLE.set(1 if up else 0)


def celery_queue_depth() -> int | None:
    url = settings.CELERY_BROKER_URL
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    try:
        if url.startswith(("redis://", "rediss://")):
            import redis

            return int(redis.Redis.from_url(url, socket_connect_timeout=0.3, socket_timeout=0.3).llen(queue))
        if url.startswith("filesystem"):
            folder = settings.CELERY_BROKER_FILESYSTEM_DIR / "queue"
            return sum(1 for _ in folder.glob("*.msg")) if folder.exists() else 0
    except Exception:  # an unreachable broker is reported as a missing sample, not an error page
        logger.warning("could not read the Celery queue depth")
    return None


# Background job tables by kind, registered by the apps that own them (AppConfig.ready(): register_job_model).
JOB_MODELS: dict[str, type] = {}


def register_job_model(kind: str, model: type) -> None:
    """A model with a ``status`` field whose rows are background jobs of ``kind``, counted by status."""
    JOB_MODELS[kind] = model


class BackgroundJobCollector:
    """Jobs by kind and status, read from the tables that persist them."""

    def describe(self):
        # Names only, so registering the collector does not query the database at start-up.
        yield GaugeMetricFamily("llmkit_celery_queue_depth", "Messages waiting in the Celery queue", labels=["queue"])
        yield GaugeMetricFamily("llmkit_jobs", "Background jobs by kind and status", labels=["kind", "status"])

    def collect(self):
        depth = GaugeMetricFamily("llmkit_celery_queue_depth", "Messages waiting in the Celery queue", labels=["queue"])
        value = celery_queue_depth()
        if value is not None:
            depth.add_metric([settings.CELERY_TASK_DEFAULT_QUEUE], value)
        yield depth
        jobs = GaugeMetricFamily("llmkit_jobs", "Background jobs by kind and status", labels=["kind", "status"])
        for kind, model in JOB_MODELS.items():
            try:
                from django.db.models import Count

                for row in model.objects.values("status").annotate(n=Count("pk")):
                    jobs.add_metric([kind, row["status"]], row["n"])
            except Exception:  # database down: report what we can
                logger.warning("could not count %s jobs", kind)
        yield jobs


# --- the /metrics endpoint ----------------------------------------------------------------------------------


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or os.environ.get("prometheus_multiproc_dir") or None


def render_metrics() -> tuple[bytes, str]:
    """The exposition text. Under gunicorn with PROMETHEUS_MULTIPROC_DIR, counters and histograms are summed over
    every worker process (so each scrape sees the whole server), and the scrape-time job gauges are added once."""
    if multiprocess_dir():
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(BackgroundJobCollector())
    else:
        registry = REGISTRY
    return generate_latest(registry), CONTENT_TYPE_LATEST


def metrics_allowed(request) -> bool:
    """A scrape is allowed with ``Authorization: Bearer <METRICS_TOKEN>`` or from an address (or network) in
    METRICS_ALLOWED_IPS; the address is the one throttles use, so X-Forwarded-For only counts behind trusted
    proxies. With neither configured nothing is allowed (in DEBUG the default allow-list is loopback)."""
    token = getattr(settings, "METRICS_TOKEN", "")
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and hmac.compare_digest(header[7:].strip().encode(), token.encode()):
        return True
    allowed = getattr(settings, "METRICS_ALLOWED_IPS", [])
    if not allowed:
        return False

    try:
        address = ipaddress.ip_address(client_address(request))
    except ValueError:
        return False
    for entry in allowed:
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            logger.warning("METRICS_ALLOWED_IPS entry %r is not an address or network", entry)
    return False
