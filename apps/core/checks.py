"""Start-up checks for what an operator must set behind a reverse proxy (``manage.py check --deploy`` lists them;
production mode runs it before serving), and the one-time warning when requests show the setting is wrong.

The app can only see the address that connects to it. Behind a proxy that is the proxy's, for every client, unless
``TRUSTED_PROXY_COUNT`` says how many X-Forwarded-For entries to trust: then all learners share one sign-in limit,
and a proxy on the same host makes every request come from 127.0.0.1, which the default ``METRICS_ALLOWED_IPS`` of
production mode allows, so /metrics is public."""

import ipaddress
import logging

from django.conf import settings
from django.core import checks

logger = logging.getLogger(__name__)

LOOPBACK_METRICS = checks.Warning(
    "METRICS_ALLOWED_IPS allows loopback and TRUSTED_PROXY_COUNT is 0: behind a reverse proxy on this host every "
    "request comes from 127.0.0.1, so /metrics would be public and every client would share one sign-in limit.",
    hint="Behind a proxy set TRUSTED_PROXY_COUNT to the number of proxies in front of the app (each appends to "
         "X-Forwarded-For) and scrape with METRICS_TOKEN; with no proxy this warning can be ignored.",
    id="llmkit.W001",
)


def _allows_loopback(entries: list[str]) -> bool:
    for entry in entries:
        try:
            network = ipaddress.ip_network(entry.strip(), strict=False)
        except ValueError:
            continue
        if network.overlaps(ipaddress.ip_network("127.0.0.0/8")) if network.version == 4 else network.is_loopback:
            return True
    return False


@checks.register(checks.Tags.security, deploy=True)
def proxy_settings(app_configs, **kwargs) -> list[checks.CheckMessage]:
    if getattr(settings, "TRUSTED_PROXY_COUNT", 0) == 0 and _allows_loopback(settings.METRICS_ALLOWED_IPS):
        return [LOOPBACK_METRICS]
    return []


class ProxyHeaderWatch:
    """Logs once per process when a request's X-Forwarded-For disagrees with TRUSTED_PROXY_COUNT: present while the
    count is 0 (a proxy nobody declared: every client gets the proxy's address), or with fewer entries than the
    count (the count is too high, or clients reach the app around the proxy and can pick their address)."""

    def __init__(self) -> None:
        self.warned = False

    def seen(self, request) -> None:
        if self.warned:
            return
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        trusted = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
        entries = [entry for entry in forwarded.split(",") if entry.strip()]
        if trusted == 0 and entries:
            problem = "requests carry X-Forwarded-For but TRUSTED_PROXY_COUNT is 0: every client behind the proxy " \
                      "shares its address (one sign-in limit; /metrics open to all if that address is allowed)"
        elif 0 < len(entries) < trusted or (trusted and not entries):
            problem = (f"a request has {len(entries)} X-Forwarded-For entries but TRUSTED_PROXY_COUNT is {trusted}: "
                       "the count is too high, or clients reach the app around the proxy")
        else:
            return
        self.warned = True
        logger.warning("proxy settings look wrong: %s; set TRUSTED_PROXY_COUNT to the number of proxies in front "
                       "of the app (README, Production mode)", problem)


proxy_header_watch = ProxyHeaderWatch()
