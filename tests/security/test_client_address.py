"""Who a client is cannot be chosen by the client: X-Forwarded-For is ignored unless TRUSTED_PROXY_COUNT says our
own proxies add it, and then only their entries count. Sign-in is limited per address, per account and address, and per account from addresses it has not signed
in from; the admin
sign-in form is limited the same way; registration and anonymous reads keep their limits under header rotation.
"""

import pytest

pytestmark = pytest.mark.django_db

WRONG = "not-the-password-1"
RIGHT = "correct-horse-battery-9"


@pytest.fixture
def rates(settings):
    """Small limits, set the way an operator would (the settings), so the tests stay quick."""

    def set_rates(**changes):
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **changes},
        }

    return set_rates


@pytest.fixture
def proxies(settings):
    def set_count(count: int):
        settings.TRUSTED_PROXY_COUNT = count
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": count}

    return set_count


def xff(i: int) -> str:
    return f"203.0.113.{i % 250 + 1}"


def test_the_default_trusts_no_proxy():
    from django.conf import settings

    assert settings.TRUSTED_PROXY_COUNT == 0
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0


def test_rotating_x_forwarded_for_does_not_reset_the_login_budget(api_client, make_user):
    make_user("victim")
    wrong = {"username": "victim", "password": WRONG}
    statuses = [api_client.post("/api/v1/auth/login/", wrong, format="json", HTTP_X_FORWARDED_FOR=xff(i)).status_code
                for i in range(10)]
    assert statuses == [400] * 10
    right = {"username": "victim", "password": RIGHT}
    response = api_client.post("/api/v1/auth/login/", right, format="json", HTTP_X_FORWARDED_FOR=xff(99))
    assert response.status_code == 429


def test_rotating_x_forwarded_for_does_not_reset_the_registration_budget(api_client):
    statuses = [
        api_client.post("/api/v1/auth/register/", {"username": f"bot{i}", "password": RIGHT}, format="json",
                        HTTP_X_FORWARDED_FOR=xff(i)).status_code
        for i in range(11)
    ]
    assert statuses[:10] == [201] * 10
    assert statuses[10] == 429


def test_rotating_x_forwarded_for_does_not_reset_the_anonymous_budget(api_client, rates, content):
    rates(anon="5/minute")
    statuses = [api_client.get("/api/v1/chapters/", HTTP_X_FORWARDED_FOR=xff(i)).status_code for i in range(6)]
    assert statuses == [200] * 5 + [429]


def test_behind_one_trusted_proxy_only_the_proxy_entry_counts(api_client, proxies, rates, content):
    proxies(1)
    rates(anon="3/minute")
    # The client writes whatever it likes on the left; our proxy appends the real peer on the right.
    spoofed = [api_client.get("/api/v1/chapters/", HTTP_X_FORWARDED_FOR=f"{xff(i)}, 198.51.100.7").status_code
               for i in range(4)]
    assert spoofed == [200, 200, 200, 429]
    # Another real client behind the same proxy has its own budget.
    assert api_client.get("/api/v1/chapters/", HTTP_X_FORWARDED_FOR="198.51.100.8").status_code == 200


def test_login_is_limited_per_account_across_addresses(api_client, make_user, proxies, rates):
    proxies(1)
    rates(login="100/minute", login_account="5/hour")
    make_user("victim")
    make_user("bystander")
    wrong = {"username": "victim", "password": WRONG}
    statuses = [api_client.post("/api/v1/auth/login/", wrong, format="json", HTTP_X_FORWARDED_FOR=xff(i)).status_code
                for i in range(5)]
    assert statuses == [400] * 5
    # Even the right password from a fresh address is refused while the account's budget is spent ...
    right = {"username": "victim", "password": RIGHT}
    response = api_client.post("/api/v1/auth/login/", right, format="json", HTTP_X_FORWARDED_FOR=xff(42))
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    # ... also through the token endpoint, and with the username in another case.
    token = {"username": "VICTIM", "password": RIGHT}
    assert api_client.post("/api/v1/auth/token/", token, format="json",
                           HTTP_X_FORWARDED_FOR=xff(43)).status_code == 429
    # Other accounts are unaffected.
    other = {"username": "bystander", "password": RIGHT}
    assert api_client.post("/api/v1/auth/login/", other, format="json", HTTP_X_FORWARDED_FOR=xff(44)).status_code == 200


def login(client, username, password, address):
    return client.post("/api/v1/auth/login/", {"username": username, "password": password}, format="json",
                       HTTP_X_FORWARDED_FOR=address).status_code


def test_a_strangers_25_wrong_passwords_from_anywhere_do_not_lock_the_owner_out(api_client, make_user, proxies):
    """The defaults: 25 failed guesses from 25 addresses (each within its own address's and pair's budget)."""
    proxies(1)
    make_user("owner")
    home = "198.51.100.20"
    assert login(api_client, "owner", RIGHT, home) == 200  # the owner has signed in from home before
    api_client.post("/api/v1/auth/logout/")
    assert [login(api_client, "owner", WRONG, xff(i)) for i in range(25)] == [400] * 25
    assert login(api_client, "owner", RIGHT, home) == 200
    api_client.post("/api/v1/auth/logout/")
    assert login(api_client, "owner", RIGHT, "198.51.100.21") == 200  # and from a new address (25 < 50)


def test_the_owners_known_address_passes_a_spent_account_budget_and_clears_it(api_client, make_user, proxies, rates):
    proxies(1)
    rates(login="100/minute", login_account="5/hour")
    make_user("owner")
    home = "198.51.100.30"
    assert login(api_client, "owner", RIGHT, home) == 200
    api_client.post("/api/v1/auth/logout/")
    assert [login(api_client, "owner", WRONG, xff(i)) for i in range(5)] == [400] * 5
    assert login(api_client, "owner", RIGHT, "198.51.100.31") == 429  # a new address: the budget is spent
    assert login(api_client, "owner", RIGHT, home) == 200  # home is exempt, and signing in gives the budget back
    api_client.post("/api/v1/auth/logout/")
    assert login(api_client, "owner", RIGHT, "198.51.100.31") == 200


def test_an_attacker_at_one_address_is_stopped_on_one_account(api_client, make_user, proxies, rates):
    """Even from the owner's own address (a shared network), guesses at one account stop at the pair's budget."""
    proxies(1)
    rates(login="100/minute", login_pair="10/15m")
    make_user("owner")
    home = "198.51.100.40"
    assert login(api_client, "owner", RIGHT, home) == 200
    api_client.post("/api/v1/auth/logout/")
    assert [login(api_client, "owner", WRONG, home) for _ in range(9)] == [400] * 9
    assert login(api_client, "owner", WRONG, home) == 429
    assert login(api_client, "owner", RIGHT, "198.51.100.41") == 200  # the owner elsewhere is not held


def test_login_is_limited_per_address_across_accounts(api_client, make_user):
    for i in range(11):
        make_user(f"user{i}")
    statuses = [api_client.post("/api/v1/auth/login/", {"username": f"user{i}", "password": WRONG},
                                format="json").status_code for i in range(10)]
    assert statuses == [400] * 10
    body = {"username": "user10", "password": RIGHT}
    assert api_client.post("/api/v1/auth/login/", body, format="json").status_code == 429


@pytest.fixture
def superuser(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser("root", "root@example.com", RIGHT)


def admin_login(client, password, forwarded=None):
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    return client.post("/admin/login/?next=/admin/", {"username": "root", "password": password}, **extra)


def test_admin_login_is_throttled_per_address(client, superuser):
    statuses = [admin_login(client, WRONG, forwarded=xff(i)).status_code for i in range(10)]
    assert statuses == [200] * 10  # the form again, with an error
    response = admin_login(client, RIGHT, forwarded=xff(77))
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session


def test_admin_login_is_throttled_per_account(client, superuser, proxies, rates):
    proxies(1)
    rates(login="100/minute", login_account="5/hour")
    statuses = [admin_login(client, WRONG, forwarded=xff(i)).status_code for i in range(5)]
    assert statuses == [200] * 5
    assert admin_login(client, RIGHT, forwarded=xff(50)).status_code == 429
    assert "_auth_user_id" not in client.session


def test_admin_login_still_works_within_the_limits(client, superuser):
    assert admin_login(client, WRONG).status_code == 200
    response = admin_login(client, RIGHT)
    assert response.status_code == 302 and response["Location"] == "/admin/"
