"""What an operator behind a reverse proxy must set is named at start-up (check --deploy) and, when requests show
the setting is wrong, in the log once."""

import logging

import pytest
from django.core.management import call_command

from apps.core.checks import proxy_header_watch, proxy_settings


@pytest.fixture(autouse=True)
def fresh_watch():
    proxy_header_watch.warned = False
    yield
    proxy_header_watch.warned = False


@pytest.mark.parametrize(("allowed", "proxies", "warned"), [
    (["127.0.0.1", "::1"], 0, True),  # production mode's default, no proxy declared
    (["127.0.0.0/8"], 0, True),
    (["::1"], 0, True),
    (["127.0.0.1"], 1, False),  # behind one proxy: the client's own address is checked
    (["10.0.0.0/8"], 0, False),
    ([], 0, False),
])
def test_loopback_metrics_without_a_proxy_count_is_flagged(settings, allowed, proxies, warned):
    settings.METRICS_ALLOWED_IPS, settings.TRUSTED_PROXY_COUNT = allowed, proxies
    assert [message.id for message in proxy_settings(None)] == (["llmkit.W001"] if warned else [])


def test_check_deploy_names_the_settings(settings, capsys):
    settings.METRICS_ALLOWED_IPS, settings.TRUSTED_PROXY_COUNT = ["127.0.0.1"], 0
    call_command("check", "--deploy", "--tag", "security")
    err = capsys.readouterr().err
    assert "llmkit.W001" in err and "TRUSTED_PROXY_COUNT" in err and "METRICS_TOKEN" in err


@pytest.mark.django_db
@pytest.mark.parametrize(("proxies", "forwarded", "logged"), [
    (0, "203.0.113.7", "TRUSTED_PROXY_COUNT is 0"),  # a proxy nobody declared
    (2, "203.0.113.7", "1 X-Forwarded-For entries but TRUSTED_PROXY_COUNT is 2"),
    (1, "", "0 X-Forwarded-For entries but TRUSTED_PROXY_COUNT is 1"),  # reached around the proxy
    (1, "203.0.113.7", None),
    (0, "", None),
])
def test_a_forwarded_header_that_disagrees_is_logged_once(client, settings, caplog, proxies, forwarded, logged):
    settings.TRUSTED_PROXY_COUNT = proxies
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    with caplog.at_level(logging.WARNING, logger="apps.core.checks"):
        for _ in range(3):
            assert client.get("/api/v1/health/", **headers).status_code == 200
    lines = [record.getMessage() for record in caplog.records if record.name == "apps.core.checks"]
    if logged is None:
        assert lines == []
    else:
        assert len(lines) == 1 and logged in lines[0], lines
