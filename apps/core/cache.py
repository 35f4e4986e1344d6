"""A Redis cache that degrades instead of failing: the shared mechanism behind throttles and cached values.

Every cache operation goes to Redis with a short socket timeout (250 ms in production). When Redis errors (killed,
refusing connections) or does not answer in time (frozen), the operation is served by a per-process local-memory
cache instead; after ``failures_to_trip`` such failures in a row Redis is left alone for ``retry_after_s`` seconds
(a circuit breaker), so a dead or frozen Redis costs a few short timeouts per process, then one per interval, not
one per request, while one slow answer from a loaded Redis sends only that operation to the local cache. The first operation after the
interval probes Redis again: recovery needs no restart. The outage is logged once when it starts and once when it
ends, and counted in Prometheus (``llmkit_cache_errors_total``, ``llmkit_cache_available``).

Throttle counters therefore fall back to a per-process limiter while Redis is down: limits stay in force per
process (looser in total across processes), and no request fails because the cache did.

Configure as ``django.core.cache.backends.redis.RedisCache`` would be, with two extra OPTIONS:
``retry_after_s`` (default 5), ``failures_to_trip`` (default 1; production sets 2) and ``fallback_max_entries``
(default 10000).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from typing import ClassVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

from apps.core import metrics

logger = logging.getLogger(__name__)


def _redis_errors() -> tuple[type[BaseException], ...]:
    import redis

    return (redis.exceptions.RedisError, OSError)


class _Breaker:
    """Per-process state for one Redis location, shared by the per-thread cache objects Django creates."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.lock = threading.Lock()
        self.down = False
        self.retry_at = 0.0
        self.failures = 0  # in a row, while up

    def should_try(self) -> bool:
        return not self.down or time.monotonic() >= self.retry_at

    def failed(self, exc: BaseException, retry_after_s: float, failures_to_trip: int = 1) -> None:
        """One operation failed (it is served locally). The breaker opens after ``failures_to_trip`` in a row, so
        one slow answer from a loaded Redis costs that operation alone; once open, a failed probe keeps it open."""
        metrics.cache_error(type(exc).__name__)
        with self.lock:
            self.retry_at = time.monotonic() + retry_after_s
            if self.down:
                return
            self.failures += 1
            if self.failures < failures_to_trip:
                return
            self.down = True
        metrics.cache_available(False)
        logger.warning(
            "cache unavailable (%s: %s); serving from a per-process cache and retrying every %.1f s",
            type(exc).__name__, exc, retry_after_s,
        )

    def succeeded(self) -> None:
        if self.failures:
            self.failures = 0
        if not self.down:
            return

        with self.lock:
            if not self.down:
                return
            self.down = False
        metrics.cache_available(True)
        logger.warning("cache available again; back on the shared cache")


class _ReusedClientRedisCacheClient(RedisCacheClient):
    """Django's Redis client builds a new ``redis.Redis`` for every operation, and its ``__init__`` fills a table of
    a few hundred response callbacks: 11 % of a cached chapter read's Python CPU in a profile under load. A client
    over a connection pool is thread-safe, so one per pool is kept (the pools themselves survive forks by pid)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client


class ResilientRedisCache(BaseCache):
    _breakers: ClassVar[dict[str, _Breaker]] = {}
    _breakers_lock = threading.Lock()

    def __init__(self, server, params):
        super().__init__(params)
        options = dict(params.get("OPTIONS", {}))
        self.retry_after_s = float(options.pop("retry_after_s", 5.0))
        self.failures_to_trip = int(options.pop("failures_to_trip", 1))
        fallback_entries = int(options.pop("fallback_max_entries", 10000))
        self._location = server if isinstance(server, str) else ",".join(server)
        self._redis = RedisCache(server, {**params, "OPTIONS": options})
        self._redis._class = _ReusedClientRedisCacheClient
        self._local = LocMemCache(
            f"resilient-fallback:{self._location}",
            {**params, "OPTIONS": {"MAX_ENTRIES": fallback_entries}},
        )
        with self._breakers_lock:
            self._breaker = self._breakers.setdefault(self._location, _Breaker(self._location))

    # -- the one place that decides where an operation goes --------------------------------------------------
    def _call(self, name: str, *args, **kwargs):
        return self._route(getattr(self._redis, name), getattr(self._local, name), *args, **kwargs)

    def _route(self, on_redis, on_local, *args, **kwargs):
        breaker = self._breaker
        if breaker.should_try():
            try:
                result = on_redis(*args, **kwargs)
            except _redis_errors() as exc:
                breaker.failed(exc, self.retry_after_s, self.failures_to_trip)
            else:
                breaker.succeeded()
                return result
        return on_local(*args, **kwargs)

    def count_in_window(self, current: str, previous: str, timeout: int) -> tuple[int, int]:
        """Adds one to the counter ``current`` (kept ``timeout`` seconds) and reads the counter ``previous``: one
        round trip to Redis (a pipeline), where the generic ``count_in_window`` below needs three."""
        return self._route(self._redis_count_in_window, functools.partial(count_in_window, self._local),
                           current, previous, timeout)

    def _redis_count_in_window(self, current: str, previous: str, timeout: int) -> tuple[int, int]:
        current_key = self._redis.make_and_validate_key(current)
        pipe = self._redis._cache.get_client(current_key, write=True).pipeline(transaction=False)
        pipe.incr(current_key)
        pipe.expire(current_key, int(timeout))
        pipe.get(self._redis.make_and_validate_key(previous))
        count, _, before = pipe.execute()
        return int(count), int(before or 0)

    @property
    def degraded(self) -> bool:
        return self._breaker.down

    def status(self) -> str:
        """Pings Redis (bypassing the breaker) and updates it: "ok" or "unavailable"."""
        try:
            self._redis._cache.get_client(write=True).ping()
        except _redis_errors() as exc:
            self._breaker.failed(exc, self.retry_after_s)
            return "unavailable"
        self._breaker.succeeded()
        return "ok"

    # -- the cache API -----------------------------------------------------------------------------------------
    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("add", key, value, timeout, version)

    def get(self, key, default=None, version=None):
        return self._call("get", key, default, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set", key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("touch", key, timeout, version)

    def delete(self, key, version=None):
        return self._call("delete", key, version)

    def get_many(self, keys, version=None):
        return self._call("get_many", list(keys), version)

    def has_key(self, key, version=None):
        return self._call("has_key", key, version)

    def incr(self, key, delta=1, version=None):
        return self._call("incr", key, delta, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set_many", data, timeout, version)

    def delete_many(self, keys, version=None):
        return self._call("delete_many", list(keys), version)

    def clear(self):
        self._local.clear()
        return self._call("clear")

    def close(self, **kwargs):
        self._redis.close(**kwargs)


def count_in_window(cache, current: str, previous: str, timeout: int) -> tuple[int, int]:
    """``ResilientRedisCache.count_in_window`` for any Django cache (the per-process fallback, local-memory caches)."""
    if hasattr(cache, "count_in_window"):
        return cache.count_in_window(current, previous, timeout)
    for _ in range(3):  # the counter may expire between add and incr
        cache.add(current, 0, timeout)
        try:
            count = cache.incr(current)
        except ValueError:
            continue
        return count, int(cache.get(previous) or 0)
    return 1, int(cache.get(previous) or 0)
