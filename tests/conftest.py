import os

import pytest
from django.db import transaction

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle counters live in the cache; each test starts with none."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def make_user(db):
    from apps.accounts.services import register_user

    counter = {"n": 0}

    def make(username: str | None = None, password: str = "correct-horse-battery-9", author: bool = False):
        counter["n"] += 1
        user = register_user(username or f"learner{counter['n']}", password)
        if author:
            from django.contrib.auth.models import Group

            from apps.core.permissions import AUTHORS_GROUP

            user.groups.add(Group.objects.get_or_create(name=AUTHORS_GROUP)[0])
        return user

    return make


@pytest.fixture
def learner_client(make_user):
    from rest_framework.test import APIClient

    client = APIClient()
    user = make_user()
    client.force_authenticate(user)
    client.user = user
    return client


@pytest.fixture
def author_client(make_user):
    from rest_framework.test import APIClient

    client = APIClient()
    user = make_user(author=True)
    client.force_authenticate(user)
    client.user = user
    return client


@pytest.fixture(scope="session")
def browser_type_launch_args():
    return {
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(scope="module")
def real_content(django_db_setup, django_db_blocker):
    """The real fixtures, loaded once for the module and rolled back after it."""
    from apps.core.content import load_all

    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            yield load_all()
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.fixture
def eager(settings):
    """Celery tasks run inline in the test's process (a sweep's chunks one after another), for tests of what a job
    computes; tests/core/test_celery_worker.py and the sweep Celery tests use a real worker instead."""
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    old = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = old
