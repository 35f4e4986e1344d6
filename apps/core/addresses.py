"""Who a request comes from: one definition that throttles, sign-in memory and the metrics allow-list share.

The address is the socket's peer unless ``TRUSTED_PROXY_COUNT`` (DRF ``NUM_PROXIES``) says that many proxies of
ours sit in front: then it is that many entries from the right of ``X-Forwarded-For``. Its own module, below both
the cache (which reports to metrics) and the throttles (which count in the cache), so none of them imports in a
circle.
"""

from __future__ import annotations

from rest_framework import throttling


def client_address(request) -> str:
    """The address throttles and logs attribute a request to (works for Django and DRF requests)."""
    return throttling.BaseThrottle().get_ident(request) or "unknown"
