import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_through_web_client(live_server, page):
    page.goto(f"{live_server.url}/signup")
    page.get_by_label("Username").fill("browseruser")
    page.get_by_label("Password").fill("correct-horse-battery-9")
    page.get_by_role("button", name="Create account").click()
    page.get_by_test_id("signed-in-as").wait_for()
    assert "browseruser" in page.get_by_test_id("signed-in-as").inner_text()
    assert "browseruser" in page.get_by_test_id("account-link").inner_text()
    # The navigation of the logged-in layout.
    for label in ("Learn", "Practice", "Flashcards", "Simulators", "Glossary"):
        assert page.get_by_role("link", name=label, exact=True).count() == 1


def test_sign_up_shows_field_error(live_server, page):
    page.goto(f"{live_server.url}/signup")
    page.get_by_label("Username").fill("weakling")
    page.get_by_label("Password").fill("123")
    page.get_by_role("button", name="Create account").click()
    assert "too short" in page.get_by_role("alert").first.inner_text()
