"""A graceful reload (SIGHUP, how production deploys new code) while learners are mid-request: gunicorn starts new
workers and retires the old ones, and every request — in flight, or sent meanwhile on a kept-alive connection an
old worker holds — gets its answer; none hangs until the client gives up, none is cut off."""

import signal
import threading
import time

import pytest
import requests

from tests.support.servers import Gunicorn

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CLIENTS = 4  # each sends its next request as soon as the last is answered: some are in flight at every reload
RELOADS = 3
CLIENT_TIMEOUT_S = 20  # far above any answer here: reaching it means the request hung
PATHS = ["/api/v1/health/", "/api/v1/chapters/", "/api/v1/questions/", "/api/v1/glossary/"]


def test_requests_during_reloads_all_get_answers(content):
    server = Gunicorn(workers=2)
    outcomes: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def learner(index: int) -> None:
        session = requests.Session()  # keep-alive
        sent = 0
        while not stop.is_set():
            path = PATHS[(index + sent) % len(PATHS)]
            sent += 1
            try:
                outcome = str(session.get(server.url + path, timeout=CLIENT_TIMEOUT_S).status_code)
            except requests.Timeout:
                outcome = f"hung: {path}"
            except requests.ConnectionError as error:
                outcome = f"cut off: {path}: {error}"
            with lock:
                outcomes.append(outcome)

    def workers() -> set[str]:
        return set(open(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read().split())

    first_workers = workers()
    threads = [threading.Thread(target=learner, args=(index,), daemon=True) for index in range(CLIENTS)]
    try:
        for thread in threads:
            thread.start()
        for _ in range(RELOADS):
            time.sleep(1.5)
            server.process.send_signal(signal.SIGHUP)
        time.sleep(3)
        replaced = first_workers.isdisjoint(workers())
        stop.set()
        for thread in threads:
            thread.join(CLIENT_TIMEOUT_S + 5)
        assert not any(thread.is_alive() for thread in threads), "a client is still waiting for an answer"
    finally:
        stop.set()
        log = server.log_tail()
        server.stop()
    failures = [outcome for outcome in outcomes if outcome != "200"]
    assert len(outcomes) > 50, outcomes
    assert failures == [], (len(failures), failures[:5], log)
    assert replaced, log  # the reloads happened: none of the first workers is left
