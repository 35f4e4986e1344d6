"""Rate limits: who a client is, and the throttles every endpoint (and the admin login) shares.

The client address is the socket's peer unless ``TRUSTED_PROXY_COUNT`` (DRF ``NUM_PROXIES``) says that many
proxies of ours sit in front: then it is that many entries from the right of ``X-Forwarded-For``, so entries a
client writes itself never change who it is. Rates are read from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` when a
throttle is made (not frozen at import). Counters live in the default cache, which degrades to a per-process cache
when Redis is down (apps.core.cache), so a throttle never fails a request.

Sign-in attempts are limited twice: per address (``login``) and per account (``login_account``), so neither
rotating addresses against one account nor one address against many accounts gets more than its budget.
"""

from __future__ import annotations

import hashlib

from django.core.exceptions import ImproperlyConfigured
from rest_framework import throttling
from rest_framework.settings import api_settings


def client_address(request) -> str:
    """The address throttles and logs attribute a request to (works for Django and DRF requests)."""
    return throttling.BaseThrottle().get_ident(request) or "unknown"


class SettingsRateMixin:
    """Reads the rate for ``scope`` from the settings in force now (DRF reloads them when settings change)."""

    def get_rate(self):
        try:
            return api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        except KeyError:
            raise ImproperlyConfigured(f"No throttle rate set for the {self.scope!r} scope")


class AnonThrottle(SettingsRateMixin, throttling.AnonRateThrottle):
    """Anonymous requests, per client address."""


class UserThrottle(SettingsRateMixin, throttling.UserRateThrottle):
    """Signed-in requests per user; anonymous ones per client address."""


class ScopedThrottle(SettingsRateMixin, throttling.ScopedRateThrottle):
    """``throttle_scope`` on the view; per user, or per client address."""


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


class LoginAccountThrottle(SettingsRateMixin, throttling.SimpleRateThrottle):
    """Sign-in attempts naming one account, from anywhere."""

    scope = "login_account"

    def get_cache_key(self, request, view):
        username = login_username(request)
        if not username:
            return None
        digest = hashlib.sha256(username.encode()).hexdigest()[:32]
        return self.cache_format % {"scope": self.scope, "ident": digest}


LOGIN_THROTTLES = (LoginAddressThrottle, LoginAccountThrottle)


def check_login_throttles(request) -> float | None:
    """For views outside DRF (the admin login): None when allowed, else seconds to wait."""
    waits = []
    for throttle_class in LOGIN_THROTTLES:
        throttle = throttle_class()
        if not throttle.allow_request(request, None):
            waits.append(throttle.wait() or 1)
    return max(waits) if waits else None
