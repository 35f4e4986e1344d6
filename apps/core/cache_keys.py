"""Cached read bodies keyed by a content version.

One counter in the shared cache (``content_version``) names the current state of all authored content. An app
wires ``watch_content(*models)`` in its ``AppConfig.ready()``: any save, delete or many-to-many change of those
models bumps the counter, so every body cached under the old version is simply never read again (it expires after
``BODY_TIMEOUT_S``). Code that changes content with ``QuerySet.update()`` (no signals) calls
``bump_content_version()`` itself.

The counter is bumped twice: at once, and again when the transaction commits. Between the two, a reader in another
transaction still sees the old rows and may cache them under the first new version; the second bump retires that
entry. A counter lost from the cache (evicted, Redis flushed) starts again from the clock, never from a value an
old entry may carry. Bodies also expire after ``BODY_TIMEOUT_S``, the bound on staleness if the shared cache is
unreachable while content changes (each process then falls back to its own cache; see ``apps.core.cache``).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from django.core.cache import cache
from django.db import models, transaction
from django.db.models.signals import m2m_changed, post_delete, post_save

VERSION_KEY = "content-version"
BODY_TIMEOUT_S = 600
# Names the shape of what views cache (dicts, rendered JSON): raise it with any change of that shape, so a deploy
# never reads an entry an older release wrote under the same content version.
BODY_FORMAT = 3
LOCAL_ENTRIES = 1024  # bodies kept in each process's memory (chapters, terms, questions, list pages): a few MB at most

_local: OrderedDict[str, tuple[float, Any]] = OrderedDict()
_local_lock = threading.Lock()

_watched: set[type[models.Model]] = set()


def content_version() -> int:
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, time.time_ns(), timeout=None)
        version = cache.get(VERSION_KEY) or time.time_ns()
    return version


def _bump() -> None:
    try:
        cache.incr(VERSION_KEY)
    except ValueError:  # not in the cache (evicted or never read): restart from the clock
        cache.set(VERSION_KEY, time.time_ns(), timeout=None)


def bump_content_version() -> None:
    """Retires every cached body; call after changing content without model signals (``QuerySet.update()``)."""
    _bump()
    transaction.on_commit(_bump)


def body_key(kind: str, *parts: Any, version: int | None = None) -> str:
    """A cache key for one read body: its kind, the content version, and what selects it (slug, author, URL)."""
    version = content_version() if version is None else version
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()
    return f"body:{BODY_FORMAT}:{kind}:{version}:{digest}"


def _local_get(key: str, now: float) -> Any:
    with _local_lock:
        hit = _local.get(key)
        if hit is not None and now - hit[0] < BODY_TIMEOUT_S:
            _local.move_to_end(key)
            return hit[1]
    return None


def _local_put(entries: dict[str, Any], now: float) -> None:
    with _local_lock:
        for key, body in entries.items():
            _local[key] = (now, body)
            _local.move_to_end(key)
        while len(_local) > LOCAL_ENTRIES:
            _local.popitem(last=False)


def cached_body(key: str, build: Callable[[], Any]) -> Any:
    """The body under ``key``, built (and stored for ``BODY_TIMEOUT_S``) when absent.

    Two layers: this process's memory (a bounded LRU) over the shared cache. The key carries the content version,
    so a process never holds a stale body under a current key; the local layer saves a hit its round trip and the
    unpickling of a 20 KB body. Entries are the same objects for every request of the process: never mutate one.
    """
    now = time.monotonic()
    body = _local_get(key, now)
    if body is not None:
        return body
    body = cache.get(key)
    if body is None:
        body = build()
        cache.set(key, body, timeout=BODY_TIMEOUT_S)
    _local_put({key: body}, now)
    return body


def cached_bodies(kind: str, items: Iterable[Hashable], build: Callable[[list], dict]) -> dict:
    """The bodies of several items of one kind (question ids, say), each under its own key, as ``cached_body``
    keeps them; those missing from both layers are built together by one call of ``build(items)``, which returns a
    dict item -> body. An item ``build`` leaves out (no longer published) is left out of the result, and not stored.
    """
    now, version = time.monotonic(), content_version()
    keys = {item: body_key(kind, item, version=version) for item in dict.fromkeys(items)}
    found = {item: _local_get(key, now) for item, key in keys.items()}
    absent = [item for item, body in found.items() if body is None]
    if absent:
        shared = cache.get_many([keys[item] for item in absent])
        fetched = {item: shared[keys[item]] for item in absent if keys[item] in shared}
        built = build([item for item in absent if item not in fetched]) if len(fetched) < len(absent) else {}
        if built:
            cache.set_many({keys[item]: body for item, body in built.items()}, timeout=BODY_TIMEOUT_S)
        arrived = fetched | built
        found.update(arrived)
        _local_put({keys[item]: body for item, body in arrived.items()}, now)
    return {item: body for item, body in found.items() if body is not None}


def _changed(sender, instance=None, action: str = "post", **_signal) -> None:
    if not action.startswith("post"):  # m2m_changed also sends pre_add, pre_remove, pre_clear
        return
    if type(instance) in _watched or isinstance(instance, tuple(_watched)):
        bump_content_version()


def watch_content(*content_models: type[models.Model]) -> None:
    """Bumps the content version whenever one of ``content_models`` is saved, deleted or has a relation changed."""
    _watched.update(content_models)
    post_save.connect(_changed, dispatch_uid="core-content-version-save")
    post_delete.connect(_changed, dispatch_uid="core-content-version-delete")
    m2m_changed.connect(_changed, dispatch_uid="core-content-version-m2m")
