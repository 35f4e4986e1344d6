"""The shared cache's timeouts and circuit breaker against a loaded but healthy Redis.

Run: .venv/bin/python benchmarks/cache_breaker.py [--seconds 20] [--workers 4] [--burners 4] [--redis-url URL]
(target: 0 breaker trips on a healthy Redis; a frozen one costs each worker at most failures_to_trip timeouts)

What production does per request: each of ``--workers`` processes (gunicorn's) runs 2 threads that call the
throttle counter (one pipelined round trip, ``count_in_window``) and a cached read (``get``) through the
production cache class, with about 1 ms of Python work between calls, while ``--burners`` processes spin on the CPU,
so the 2-core machine is oversubscribed as under the load benchmark and Redis itself waits for a core. For each
socket timeout and trip threshold it prints the operations, the round-trip latency quantiles, the operations that
hit the timeout and the breaker trips (each trip sends every operation of that process to the local fallback for
``retry_after_s``, 5 s). Then Redis is frozen (SIGSTOP) and the time each worker loses before its breaker opens is
measured. Needs a Redis server binary (a private one is started on a free port) unless --redis-url is given.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIGS = [(0.05, 1), (0.1, 1), (0.25, 1), (0.25, 2)]  # (socket timeout s, failures in a row to trip)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_cache(url: str, timeout_s: float, failures_to_trip: int):
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from apps.core.cache import ResilientRedisCache

    ResilientRedisCache._breakers.clear()  # a fresh breaker per configuration (forked from the parent)
    return ResilientRedisCache(url, {"OPTIONS": {
        "socket_connect_timeout": timeout_s, "socket_timeout": timeout_s, "retry_after_s": 5.0,
        "failures_to_trip": failures_to_trip}})


def worker(url, timeout_s, trip, seconds, results, worker_id):
    cache = make_cache(url, timeout_s, trip)
    breaker = cache._breaker
    trips = [0]
    original = breaker.failed

    def counted(exc, retry_after_s, failures_to_trip=1):
        was_down = breaker.down
        original(exc, retry_after_s, failures_to_trip)
        if breaker.down and not was_down:
            trips[0] += 1

    breaker.failed = counted
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def loop(thread_id: int) -> None:
        mine, n = [], 0
        while time.monotonic() < stop_at:
            n += 1
            for call in (lambda: cache.count_in_window(f"bench:{worker_id}:{thread_id}:{n % 50}", "bench:prev", 60),
                         lambda: cache.get("bench:body")):
                down = breaker.down
                started = time.perf_counter()
                call()
                if not down and not breaker.down:
                    mine.append(time.perf_counter() - started)
            end = time.perf_counter() + 0.001
            while time.perf_counter() < end:  # the request's own Python work
                pass
        with lock:
            latencies.extend(mine)

    from prometheus_client import REGISTRY

    def error_total() -> float:
        return sum(s.value for m in REGISTRY.collect() if m.name == "llmkit_cache_errors" for s in m.samples
                   if s.name == "llmkit_cache_errors_total")

    before = error_total()
    threads = [threading.Thread(target=loop, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    errors[0] = int(error_total() - before)
    results.put((latencies, errors[0], trips[0]))


def burn(stop_at: float) -> None:
    while time.monotonic() < stop_at:
        pass


def write_disk(stop_at: float, path: Path) -> None:
    block = os.urandom(8 << 20)
    with open(path, "wb") as handle:
        while time.monotonic() < stop_at:
            handle.seek(0)
            handle.write(block)
            handle.flush()
            os.fsync(handle.fileno())


def frozen_cost(url, timeout_s, trip, redis_pid, results):
    """Redis frozen: how long one worker's requests wait, in all, before its breaker opens (then none wait)."""
    cache = make_cache(url, timeout_s, trip)
    cache.get("warm")
    os.kill(redis_pid, signal.SIGSTOP)
    try:
        lost, calls = 0.0, 0
        while not cache._breaker.down and calls < 100:
            started = time.perf_counter()
            cache.get("bench:body")
            lost += time.perf_counter() - started
            calls += 1
        started = time.perf_counter()
        for _ in range(100):
            cache.get("bench:body")
        after = (time.perf_counter() - started) / 100
    finally:
        os.kill(redis_pid, signal.SIGCONT)
    results.put((lost, calls, after))


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--burners", type=int, default=4)
    parser.add_argument("--aof", action="store_true",
                        help="Redis with append-only persistence (fsync every second), as production mode's broker")
    parser.add_argument("--disk-writers", type=int, default=0,
                        help="processes writing and fsyncing 8 MB at a time, as PostgreSQL under load")
    args = parser.parse_args()
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="bench-cache-"))
    persistence = ["--appendonly", "yes", "--appendfsync", "everysec"] if args.aof else ["--appendonly", "no"]
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--dir", str(folder), *persistence],
                             stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    time.sleep(0.5)
    os.environ["CACHE_URL"] = url
    ctx = mp.get_context("fork")
    print(f"load: {args.workers} workers x 2 threads, {args.burners} CPU burners, {args.disk_writers} disk writers, "
          f"Redis {'with' if args.aof else 'without'} append-only file, {os.cpu_count()} CPUs, "
          f"{args.seconds:.0f} s per configuration, load average before {os.getloadavg()[0]:.1f}")
    print(f"{'timeout':>8} {'trip':>4} {'ops':>8} {'p50 ms':>7} {'p99 ms':>7} {'p99.9 ms':>8} {'max ms':>7} "
          f"{'> timeout':>9} {'trips':>5} {'cpu s':>6} {'wall s':>6}")
    try:
        for timeout_s, trip in CONFIGS:
            results = ctx.Queue()
            cpu_before, wall_before = os.times(), time.monotonic()
            burners = [ctx.Process(target=burn, args=(time.monotonic() + args.seconds,)) for _ in range(args.burners)]
            burners += [ctx.Process(target=write_disk, args=(time.monotonic() + args.seconds, folder / f"disk-{index}"))
                        for index in range(args.disk_writers)]
            workers = [ctx.Process(target=worker, args=(url, timeout_s, trip, args.seconds, results, index))
                       for index in range(args.workers)]
            for process in burners + workers:
                process.start()
            latencies, errors, trips = [], 0, 0
            for _ in workers:
                lat, err, tr = results.get(timeout=args.seconds + 60)
                latencies += lat
                errors += err
                trips += tr
            for process in burners + workers:
                process.join(30)
            cpu = os.times()
            cpu_s = (cpu.children_user - cpu_before.children_user) + (cpu.children_system - cpu_before.children_system)
            ms = [value * 1000 for value in latencies]
            print(f"{timeout_s * 1000:>6.0f}ms {trip:>4} {len(ms):>8} {quantile(ms, .5):>7.2f} {quantile(ms, .99):>7.2f} "
                  f"{quantile(ms, .999):>8.2f} {max(ms):>7.1f} {errors:>9} {trips:>5} {cpu_s:>6.1f} "
                  f"{time.monotonic() - wall_before:>6.1f}")
        print("\nRedis frozen (SIGSTOP): one worker's time lost before its breaker opens, then per call")
        for timeout_s, trip in CONFIGS:
            results = ctx.Queue()
            process = ctx.Process(target=frozen_cost, args=(url, timeout_s, trip, redis.pid, results))
            process.start()
            lost, calls, after = results.get(timeout=60)
            process.join(30)
            print(f"  timeout {timeout_s * 1000:.0f} ms, trip after {trip}: {lost * 1000:.0f} ms over {calls} calls, "
                  f"then {after * 1e6:.0f} us a call")
    finally:
        redis.terminate()
        redis.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
