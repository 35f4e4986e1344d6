"""Journey tests: one test per learner journey, driving Chromium through the built web client.

Every page a journey opens is watched: a console error, an uncaught exception, a request that fails at the network
level or a response with status >= 400 fails the journey (unless the journey declares that exact response as
expected). The end state of every page is saved as a screenshot under var/journeys/ (git-ignored).
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import expect

# Assertions wait up to 10 s, not Playwright's 5 s: under a full run the page and the live server share two cores.
expect.set_options(timeout=10_000)

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "journeys"
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


@dataclass
class Watch:
    """What went wrong on one page, as a learner's browser saw it."""

    name: str
    problems: list[str] = field(default_factory=list)
    expected: list[tuple[int, re.Pattern]] = field(default_factory=list)

    def expect_status(self, status: int, url_pattern: str) -> None:
        """This response is part of the journey (e.g. the 404 page itself), not a failure."""
        self.expected.append((status, re.compile(url_pattern)))

    def _is_expected(self, status: int, url: str) -> bool:
        return any(status == code and pattern.search(url) for code, pattern in self.expected)

    def attach(self, page) -> None:
        page.on("console", self._on_console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught exception: {error}"))
        page.on("requestfailed", self._on_request_failed)
        page.on("response", self._on_response)

    def _on_console(self, message) -> None:
        if message.type != "error":
            return
        text = message.text
        # Chromium logs every >= 400 response as a console error too; expected ones are part of the journey.
        if "Failed to load resource" in text and any(
            f"status of {code}" in text and pattern.search(message.location.get("url", "")) for code, pattern in self.expected
        ):
            return
        self.problems.append(f"console error: {text} ({message.location.get('url', '')})")

    def _on_request_failed(self, request) -> None:
        failure = request.failure or ""
        # ERR_ABORTED is the browser cancelling, never the server failing: the client cancels superseded fetches on
        # purpose (typing in search), and leaving a page aborts whatever it still loads (a lazily loaded chunk, the
        # favicon). A resource that is really missing answers 404, which _on_response reports.
        if "ERR_ABORTED" in failure:
            return
        self.problems.append(f"request failed: {request.method} {request.url} ({failure})")

    def _on_response(self, response) -> None:
        if response.status >= 400 and not self._is_expected(response.status, response.url):
            self.problems.append(f"HTTP {response.status}: {response.request.method} {response.url}")


@pytest.fixture
def site(live_server):
    """The live server with every content file loaded, as a learner meets it."""
    from django.core.management import call_command

    call_command("load_content", verbosity=0)
    return live_server


@pytest.fixture
def open_page(browser, request):
    """Opens watched pages: open_page("phone") → (page, watch). Screenshots and checks run when the test ends."""
    opened: list[tuple[object, object, Watch]] = []

    def open_(kind: str = "desktop", name: str = ""):
        options = {"viewport": DESKTOP}
        if kind == "phone":
            options = {"viewport": PHONE, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
        context = browser.new_context(**options)
        page = context.new_page()
        page.set_default_timeout(20_000)  # two test workers and a live server share two cores
        watch = Watch(name or f"{request.node.name}-{kind}")
        watch.attach(page)
        opened.append((context, page, watch))
        return page, watch

    yield open_

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for context, page, watch in opened:
        try:
            page.screenshot(path=str(SCREENSHOTS / f"{_safe(watch.name)}.png"), full_page=False)
        except Exception as error:
            problems.append(f"{watch.name}: screenshot failed: {error}")
        problems += [f"{watch.name}: {problem}" for problem in watch.problems]
        context.close()
    if problems and getattr(request.node, "rep_call_passed", lambda: False)():
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def desktop(open_page):
    return open_page("desktop")


@pytest.fixture
def phone(open_page):
    return open_page("phone")


def shot(page, name: str) -> None:
    """A screenshot of a moment inside a journey (the end state is saved automatically)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{_safe(name)}.png"))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.rep_call_passed = lambda: report.passed
    return report


def sign_up(page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/signup")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct-horse-battery-9")
    page.get_by_role("button", name="Create account").click()
    page.get_by_test_id("signed-in-as").wait_for()
