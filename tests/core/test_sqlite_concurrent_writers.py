"""The embedded default (SQLite, as `make run` starts it) under concurrent writers: 8 learners reviewing cards and
answering practice questions at once through a real server. Every write must be answered and stored exactly once:
a writer waits for the database lock instead of failing with 503."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid

import pytest
import requests

from tests.support.servers import ROOT, free_port, wait_for_health

LEARNERS = 8
REVIEWS_EACH = 12
ANSWERS_EACH = 6


def _embedded_env(db_path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env.update(DATABASE_URL=f"sqlite:///{db_path}", THROTTLE_ANON="1000000/hour", THROTTLE_USER="1000000/hour",
               THROTTLE_LOGIN="1000000/hour", VAR_DIR=str(db_path.parent))
    return env


@pytest.fixture(scope="module")
def embedded_site(tmp_path_factory):
    """The site on a fresh SQLite file with all content, served by runserver as `make run` serves it."""
    folder = tmp_path_factory.mktemp("embedded")
    env = _embedded_env(folder / "db.sqlite3")
    manage = [sys.executable, "manage.py"]
    for command in (["migrate", "--noinput", "-v", "0"], ["load_content", "-v", "0"]):
        subprocess.run([*manage, *command], cwd=ROOT, env=env, check=True, timeout=300, capture_output=True)
    port = free_port()
    log = open(folder / "server.log", "w+")
    server = subprocess.Popen([*manage, "runserver", f"127.0.0.1:{port}", "--noreload"], cwd=ROOT, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, server, timeout=60)
        yield url, env
    finally:
        server.terminate()
        server.wait(timeout=15)
        log.close()


def _learner(url: str, n: int) -> requests.Session:
    session = requests.Session()
    r = session.post(f"{url}/api/v1/auth/register/", timeout=30,
                     json={"username": f"writer{n}", "password": "correct-horse-battery-9", "issue_token": True})
    assert r.status_code == 201, r.text
    session.headers["Authorization"] = f"Token {r.json()['token']}"
    session.cookies.clear()
    return session


def _review_and_answer(url: str, session: requests.Session, sent: list, failures: list) -> None:
    """One learner's work: reviews of the due queue's cards, then answers to a practice session of open questions."""
    try:
        cards = session.get(f"{url}/api/v1/flashcards/due/?limit={REVIEWS_EACH}", timeout=60).json()["cards"]
        for card in cards[:REVIEWS_EACH]:
            review_id = str(uuid.uuid4())
            r = session.post(f"{url}/api/v1/flashcards/{card['card_id']}/review/", json={"rating": 3, "review_id": review_id},
                             timeout=60)
            (sent if r.status_code == 201 else failures).append(("review", review_id, r.status_code, r.text[:200]))
        r = session.post(f"{url}/api/v1/practice/sessions/", json={"kind": ["open"], "size": ANSWERS_EACH}, timeout=60)
        if r.status_code != 201:
            failures.append(("session", None, r.status_code, r.text[:200]))
            return
        practice = r.json()
        for question in practice["questions"]:
            r = session.post(f"{url}/api/v1/practice/sessions/{practice['id']}/answers/",
                             json={"question": question["id"], "self_rating": "good"}, timeout=60)
            (sent if r.status_code == 201 else failures).append(("answer", practice["id"], r.status_code, r.text[:200]))
    except requests.RequestException as error:
        failures.append(("transport", None, 0, repr(error)))


def test_eight_concurrent_writers_on_sqlite_lose_nothing_and_store_each_write_once(embedded_site):
    url, env = embedded_site
    learners = [_learner(url, n) for n in range(LEARNERS)]
    for session in learners:
        r = session.post(f"{url}/api/v1/flashcards/decks/all/add/", timeout=120)
        assert r.status_code == 200 and r.json()["added"] > REVIEWS_EACH, r.text
    sent: list = []
    failures: list = []
    start = threading.Barrier(LEARNERS)

    def run(session):
        start.wait()
        _review_and_answer(url, session, sent, failures)

    threads = [threading.Thread(target=run, args=(session,)) for session in learners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)
    assert [item[2:] for item in failures] == []
    reviews = [item for item in sent if item[0] == "review"]
    answers = [item for item in sent if item[0] == "answer"]
    assert len(reviews) == LEARNERS * REVIEWS_EACH
    assert len(answers) == LEARNERS * ANSWERS_EACH

    # What the database holds, read by a separate process: each review id once, each practice answer once.
    count = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from apps.flashcards.models import ReviewLog as Review; from apps.quiz.models import PracticeAnswer; "
         "ids = list(Review.objects.values_list('review_id', flat=True)); "
         "print(len(ids), len(set(ids)), PracticeAnswer.objects.count())"],
        cwd=ROOT, env=env, check=True, timeout=120, capture_output=True, text=True,
    ).stdout.strip().splitlines()[-1].split()
    assert [int(value) for value in count] == [LEARNERS * REVIEWS_EACH] * 2 + [LEARNERS * ANSWERS_EACH]
