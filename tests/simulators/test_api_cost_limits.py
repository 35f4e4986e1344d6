"""Every simulator input is bounded by what it costs: anonymous requests more tightly than signed-in ones, and the
400 names the limit (prefix caching's token lists are the costliest input per byte)."""

import json

import pytest
from api_helpers import BASE, load_real_catalog

from apps.simulators.api.inputs import PREFIX_TOKEN_LIMITS

pytestmark = pytest.mark.django_db
URL = f"{BASE}/prefix-cache/"
ANON_CLIENT, SIGNED_CLIENT = PREFIX_TOKEN_LIMITS["client"]
ANON_SYNTHETIC, SIGNED_SYNTHETIC = PREFIX_TOKEN_LIMITS["synthetic"]


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


def prompts(total: int, per_prompt: int = 1000) -> list[list[int]]:
    full, rest = divmod(total, per_prompt)
    return [[7] * per_prompt] * full + ([[7] * rest] if rest else [])


def test_client_token_lists_are_capped_lower_for_anonymous_requests(api_client, learner_client):
    # 12,001 ids of one digit are about 24 KB: under the anonymous body limit, over the anonymous token cap.
    body = {"prompts": prompts(ANON_CLIENT + 1), "capacity_blocks": 100}
    r = api_client.post(URL, body, format="json")
    assert r.status_code == 400
    assert r.json()["fields"]["prompts"] == [f"at most {ANON_CLIENT:,} tokens in all for an anonymous request "
                                             "(sign in for more)"]
    assert learner_client.post(URL, body, format="json").status_code == 200
    assert api_client.post(URL, {"prompts": prompts(ANON_CLIENT), "capacity_blocks": 100},
                           format="json").status_code == 200


def test_signed_in_token_lists_are_capped_too(learner_client):
    r = learner_client.post(URL, {"prompts": prompts(SIGNED_CLIENT + 1), "capacity_blocks": 100}, format="json")
    assert r.status_code == 400
    assert r.json()["fields"]["prompts"] == [f"at most {SIGNED_CLIENT:,} tokens in all"]


def test_synthetic_prompts_are_capped_by_their_token_count(api_client, learner_client):
    # 1,001 requests x (500 + 500) tokens = 1,001,000 > 1,000,000 (anonymous); <= 2,000,000 (signed in).
    body = {"synthetic": {"num_requests": 1001, "system_tokens": 500, "user_tokens": 500}, "capacity_blocks": 100}
    r = api_client.post(URL, body, format="json")
    assert r.status_code == 400 and "synthetic.num_requests" in r.json()["fields"]
    assert learner_client.post(URL, body, format="json").status_code == 200


def test_an_anonymous_body_past_its_limit_is_refused_before_parsing_with_the_limit_named(api_client, learner_client):
    # 70,000 bytes of text: more than 64 KiB (65,536), less than the signed-in 256 KiB.
    body = {"texts": ["x" * 70_000], "capacity_blocks": 100}
    assert len(json.dumps(body)) > 64 * 1024
    r = api_client.post(f"{BASE}/prefix-cache/", body, format="json")
    assert r.status_code == 400
    assert r.json()["detail"] == ("Request body too large: at most 65,536 bytes for an anonymous request here; "
                                  "signed in, up to 1,000,000 bytes.")
    assert learner_client.post(f"{BASE}/prefix-cache/", body, format="json").status_code == 200
    r = api_client.post(f"{BASE}/kv-cache/", {"model": "llama-3.1-8b", "context_tokens": 1, "pad": "x" * 70_000},
                        format="json")
    assert r.status_code == 400 and "at most 65,536 bytes for an anonymous request" in r.json()["detail"]


def test_a_browser_session_with_csrf_gets_the_signed_in_limit(make_user):
    """The session check reads the body for a CSRF token while DRF is still authenticating; the body limit must not
    ask DRF for the user again (that recursed)."""
    from rest_framework.test import APIClient

    make_user("browser", password="correct-horse-battery-9")
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username="browser", password="correct-horse-battery-9")
    client.get("/api/v1/auth/csrf/")
    body = {"texts": ["x" * 70_000], "capacity_blocks": 100}  # over the anonymous 64 KiB, under the signed-in limit
    r = client.post(URL, body, format="json", HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert r.status_code == 200, r.content[:300]
