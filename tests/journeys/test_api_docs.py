"""API docs render under the site's Content-Security-Policy, with every asset served by the site itself."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _requests(page) -> list[str]:
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    return urls


def test_swagger_ui_renders_operations_under_the_csp(live_server, desktop):
    page, _ = desktop
    requested = _requests(page)
    response = page.goto(f"{live_server.url}/api/docs/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("LLM-serving interview kit API")
    operations = page.locator(".opblock")
    expect(operations.first).to_be_visible(timeout=20_000)
    # Swagger UI renders a list of 150 tags and operations or more as a window over the page (its Virtualizer), so
    # the operations are counted while scrolling through the whole list.
    seen: set[str] = set()
    for _ in range(200):
        seen.update(page.locator(".opblock-summary-path").all_inner_texts())
        if page.evaluate("window.scrollY + window.innerHeight >= document.body.scrollHeight - 2"):
            break
        page.mouse.wheel(0, 700)
        page.wait_for_timeout(30)
    assert len(seen) > 100, sorted(seen)
    assert {"/api/v1/design-exercises/", "/api/v1/study-plan/", "/api/v1/simulators/sweeps/"} <= seen
    page.evaluate("window.scrollTo(0, 0)")
    expect(page.locator(".opblock-summary-path", has_text=re.compile(r"^/api/v1/chapters/$")).first).to_be_visible()

    # An operation opens with its parameters and responses.
    page.locator(".opblock-summary-path", has_text=re.compile(r"^/api/v1/chapters/$")).first.click()
    expect(page.locator(".opblock.is-open .responses-wrapper").first).to_be_visible()
    assert all(url.startswith(live_server.url) for url in requested), [u for u in requested if not u.startswith(live_server.url)]

