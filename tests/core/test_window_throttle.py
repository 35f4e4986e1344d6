"""The throttles count requests in two fixed windows (one pipelined round trip) and estimate the sliding window as
the previous window's count, weighted by its remaining overlap, plus the current one."""

import os
import uuid

import pytest
from django.core.cache.backends.locmem import LocMemCache
from rest_framework import throttling

from apps.core.cache import ResilientRedisCache
from apps.core.throttling import SettingsRateMixin, sliding_wait


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def throttle_class(rate: str, cache, clock: Clock):
    class PerKey(SettingsRateMixin, throttling.SimpleRateThrottle):
        def get_rate(self):
            return rate

        def get_cache_key(self, request, view):
            return "throttle-test:one-client"

    PerKey.cache = cache
    PerKey.timer = clock
    return PerKey


def allowed(throttle_type) -> bool:
    return throttle_type().allow_request(request=None, view=None)


@pytest.fixture
def local_cache():
    return LocMemCache(f"throttle-{uuid.uuid4()}", {})


@pytest.fixture
def redis_cache():
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    cache = ResilientRedisCache(url, {"KEY_PREFIX": f"throttle-test-{uuid.uuid4().hex}"})
    yield cache
    client = cache._redis._cache.get_client(write=True)
    for key in client.scan_iter(f"{cache.key_prefix}*"):
        client.delete(key)


@pytest.mark.parametrize("cache_name", ["local_cache", "redis_cache"])
def test_the_limit_holds_within_a_window_and_refusals_do_not_count(cache_name, request):
    cache = request.getfixturevalue(cache_name)
    clock = Clock(600.0)  # the start of a minute window
    throttle_type = throttle_class("3/minute", cache, clock)
    assert [allowed(throttle_type) for _ in range(3)] == [True, True, True]
    refused = throttle_type()
    assert refused.allow_request(None, None) is False
    # 3 in this window, none before: 60 s to this window's end, then these 3 must weigh at most 2:
    # 3 x (1 - t/60) <= 2 -> t = 20 s into the next window, 80 s in all.
    assert refused.wait() == pytest.approx(80.0)
    assert [allowed(throttle_type) for _ in range(5)] == [False] * 5
    # Refusals were taken back: half-way through the next window the previous 3 weigh 1.5, so one more fits
    # (1.5 + 1 <= 3) and a second too (1.5 + 2 > 3 refuses: 3.5).
    clock.now = 690.0
    assert allowed(throttle_type) is True
    assert allowed(throttle_type) is False


def test_the_previous_window_fades_out_linearly(local_cache):
    clock = Clock(0.0)
    throttle_type = throttle_class("10/minute", local_cache, clock)
    assert all(allowed(throttle_type) for _ in range(10))
    # 45 s into the next window: the previous 10 weigh 10 x 15/60 = 2.5, so 7 more fit (2.5 + 7 = 9.5 <= 10) and
    # the 8th does not (10.5).
    clock.now = 105.0
    results = [allowed(throttle_type) for _ in range(8)]
    assert results == [True] * 7 + [False]


def test_sliding_wait_hand_derived():
    # 2 so far in this window, 4 in the previous, limit 5, 30 s into a 60 s window: one more needs the previous
    # share to fall to 5 - 1 - 2 = 2, i.e. 4 x (1 - t/60) <= 2 -> t = 30 s: already there.
    assert sliding_wait(2, 4, 30.0, 60, 5) == 0.0
    # Same at 10 s: 20 s to wait.
    assert sliding_wait(2, 4, 10.0, 60, 5) == pytest.approx(20.0)
    # 5 in this window (limit 5), 20 s in: 40 s to the next window, where 5 x (1 - t/60) + 1 <= 5 -> t = 12 s.
    assert sliding_wait(5, 0, 20.0, 60, 5) == pytest.approx(52.0)


def test_one_round_trip_to_redis_per_counted_request(redis_cache, monkeypatch):
    import redis

    single_commands, pipelines = [], []
    run_command, run_pipeline = redis.Redis.execute_command, redis.client.Pipeline.execute
    monkeypatch.setattr(redis.Redis, "execute_command",
                        lambda self, *args, **kw: single_commands.append(args[0]) or run_command(self, *args, **kw))
    monkeypatch.setattr(redis.client.Pipeline, "execute",
                        lambda self, *args, **kw: pipelines.append(len(self.command_stack)) or run_pipeline(self, *args, **kw))
    assert redis_cache.count_in_window("k:2", "k:1", 120) == (1, 0)
    assert redis_cache.count_in_window("k:2", "k:1", 120) == (2, 0)
    assert single_commands == []
    assert pipelines == [3, 3]  # INCR, EXPIRE and GET, sent together
