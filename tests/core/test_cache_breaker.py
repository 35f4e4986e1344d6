"""The shared cache's breaker: one slow answer from a loaded Redis costs that operation alone; failures in a row
open it (every operation then served locally until the retry interval passes)."""

import socket

import pytest

from apps.core.cache import ResilientRedisCache


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again: connections are refused


@pytest.fixture
def dead_cache():
    location = f"redis://127.0.0.1:{unused_port()}/0"
    ResilientRedisCache._breakers.pop(location, None)
    cache = ResilientRedisCache(location, {"OPTIONS": {"socket_timeout": 0.25, "socket_connect_timeout": 0.25,
                                                       "retry_after_s": 60, "failures_to_trip": 2}})
    yield cache
    ResilientRedisCache._breakers.pop(location, None)


def test_one_failure_does_not_open_the_breaker_two_in_a_row_do(dead_cache):
    dead_cache.set("k", 1)  # refused: served locally, breaker still closed
    assert not dead_cache.degraded and dead_cache._breaker.failures == 1
    assert dead_cache.get("k") == 1  # refused again (the second in a row): open
    assert dead_cache.degraded
    before = dead_cache._breaker.retry_at
    assert dead_cache.get("k") == 1  # open: not tried, so the retry time does not move
    assert dead_cache._breaker.retry_at == before


def test_a_success_between_failures_starts_the_count_again(dead_cache):
    dead_cache.set("k", 1)
    dead_cache._breaker.succeeded()  # what a good answer from Redis does
    dead_cache.set("k", 2)
    assert not dead_cache.degraded and dead_cache._breaker.failures == 1
