"""Rate limits: the throttles every endpoint (and the admin login) shares.

A client is its address (apps.core.addresses: entries a client writes into ``X-Forwarded-For`` itself never change
who it is). Rates are read from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` when a
throttle is made (not frozen at import). Counters live in the default cache, which degrades to a per-process cache
when Redis is down (apps.core.cache), so a throttle never fails a request.

Sign-in attempts are limited three times, so guessing is stopped without letting a stranger lock the owner out:
per address (``login``: one address against many accounts), per account and address (``login_pair``: one address
against one account, the owner's included), and per account from addresses it has not signed in from
(``login_account``: rotating addresses against one account). That last budget is larger and shorter, an address
the account has signed in from before is exempt from it, and such a sign-in clears it: a stranger's failed guesses
from anywhere never refuse the owner at home.
"""

from __future__ import annotations

import hashlib
import re

from django.core.exceptions import ImproperlyConfigured
from rest_framework import throttling
from rest_framework.settings import api_settings

from apps.core.addresses import client_address
from apps.core.cache import count_in_window


class SettingsRateMixin:
    """Reads the rate for ``scope`` from the settings in force now (DRF reloads them when settings change), and
    counts requests in two fixed windows instead of DRF's list of timestamps.

    DRF keeps every request's timestamp of the last hour in one cache entry, read and written back on each request:
    two round trips and a list that grows to the rate (20,000 floats for a busy learner at 20,000/hour). Here the
    window of the rate's duration is split at multiples of the duration; one counter per window, and the sliding
    window is estimated as the previous window's count weighted by how much of it still overlaps, plus the current
    one (the approximation rate limiters at scale use). One pipelined round trip per request; a refused request is
    taken back off the count, as DRF does not record refusals either.
    """

    def parse_rate(self, rate):
        """DRF's rates plus a count of units: "50/15m" is 50 per 15 minutes."""
        if rate is None:
            return (None, None)
        num, period = rate.split("/")
        match = re.fullmatch(r"(\d*)([smhd])[a-z]*", period)
        if match is None:
            raise ImproperlyConfigured(f"Throttle rate {rate!r} is not N/[count]unit, e.g. 10/minute or 50/15m")
        count, unit = match.groups()
        return (int(num), int(count or 1) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit])

    def get_rate(self):
        try:
            return api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        except KeyError:
            raise ImproperlyConfigured(f"No throttle rate set for the {self.scope!r} scope")

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        current = f"{self.key}:{window}"
        count, before = count_in_window(self.cache, current, f"{self.key}:{window - 1}", 2 * self.duration)
        elapsed = self.now - window * self.duration
        if before * (1 - elapsed / self.duration) + count <= self.num_requests:
            return True
        try:
            self.cache.decr(current)
        except ValueError:  # expired meanwhile: nothing to take back
            pass
        self.retry_after = sliding_wait(count - 1, before, elapsed, self.duration, self.num_requests)
        return False

    def wait(self):
        return self.retry_after


def sliding_wait(count: int, before: int, elapsed: float, duration: int, limit: int) -> float:
    """Seconds until one more request fits: ``count`` requests so far in the current window, ``before`` in the
    previous one, ``elapsed`` seconds into the current window."""
    room = limit - 1 - count  # what the previous window's weighted share must fall to
    if room >= 0:
        if before <= 0:
            return 0.0
        return max(duration * (1 - room / before) - elapsed, 0.0)
    # Not before the next window, where this window's count is the weighted share.
    into_next = duration * (1 - (limit - 1) / count) if count > 0 else 0.0
    return duration - elapsed + max(into_next, 0.0)


class AnonThrottle(SettingsRateMixin, throttling.AnonRateThrottle):
    """Anonymous requests, per client address."""


class UserThrottle(SettingsRateMixin, throttling.UserRateThrottle):
    """Signed-in requests per user; anonymous ones per client address."""


class ScopedThrottle(SettingsRateMixin, throttling.ScopedRateThrottle):
    """``throttle_scope`` on the view; per user, or per client address."""

    def allow_request(self, request, view):
        # DRF's ScopedRateThrottle reads the scope here, then counts (the window counter above).
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


class AddressThrottle(SettingsRateMixin, throttling.SimpleRateThrottle):
    """Per client address, whoever is signed in."""

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}


def login_username(request) -> str:
    """The account a sign-in attempt names: DRF's parsed body, or the form fields of a plain Django request."""
    data = getattr(request, "data", None)
    if data is None:
        data = request.POST
    value = data.get("username") if hasattr(data, "get") else None
    return value.strip().lower() if isinstance(value, str) else ""


class LoginAddressThrottle(AddressThrottle):
    scope = "login"


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


KNOWN_ADDRESS_DAYS = 90


def _known_key(username: str, address: str) -> str:
    return f"login-known:{_digest(username)}:{_digest(address)}"


def address_is_known(request, username: str) -> bool:
    """Whether this account has signed in from the request's address in the last ``KNOWN_ADDRESS_DAYS``."""
    from django.core.cache import cache

    return bool(username) and bool(cache.get(_known_key(username, client_address(request))))


def remember_sign_in(request, username: str) -> None:
    """A successful sign-in: its address becomes known to the account, and the account's budget for addresses it
    has not signed in from is given back (the owner is in)."""
    from django.core.cache import cache

    username = username.strip().lower()
    cache.set(_known_key(username, client_address(request)), 1, KNOWN_ADDRESS_DAYS * 86_400)
    LoginAccountThrottle().clear(username)


class LoginPairThrottle(SettingsRateMixin, throttling.SimpleRateThrottle):
    """Sign-in attempts naming one account from one address (the owner's own address included)."""

    scope = "login_pair"

    def get_cache_key(self, request, view):
        username = login_username(request)
        if not username:
            return None
        return self.cache_format % {"scope": self.scope, "ident": _digest(f"{username} {client_address(request)}")}


class LoginAccountThrottle(SettingsRateMixin, throttling.SimpleRateThrottle):
    """Sign-in attempts naming one account from addresses it has never signed in from."""

    scope = "login_account"

    def get_cache_key(self, request, view):
        username = login_username(request)
        if not username or address_is_known(request, username):
            return None
        return self._key(username)

    def _key(self, username: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": _digest(username)}

    def clear(self, username: str) -> None:
        key, window = self._key(username), int(self.timer() // self.duration)
        self.cache.delete_many([f"{key}:{window}", f"{key}:{window - 1}"])


LOGIN_THROTTLES = (LoginAddressThrottle, LoginPairThrottle, LoginAccountThrottle)


def check_login_throttles(request) -> float | None:
    """For views outside DRF (the admin login): None when allowed, else seconds to wait."""
    waits = []
    for throttle_class in LOGIN_THROTTLES:
        throttle = throttle_class()
        if not throttle.allow_request(request, None):
            waits.append(throttle.wait() or 1)
    return max(waits) if waits else None
