"""An unknown URL: HTTP 404 from the server, and the app shell says "not found" with links onward."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.mark.browser
def test_unknown_url_is_a_404_page_with_links_onward(live_server, phone):
    page, watch = phone
    watch.expect_status(404, r"/no/such/page$")
    response = page.goto(f"{live_server.url}/no/such/page")
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    expect(page).to_have_title(re.compile("not found", re.I))
    main = page.get_by_role("main")
    for name in ("Home", "Learn", "Practice", "Glossary"):
        expect(main.get_by_role("link", name=name, exact=True)).to_be_visible()
    main.get_by_role("link", name="Learn", exact=True).click()
    expect(page).to_have_url(re.compile("/learn$"))
    expect(page.get_by_role("heading", level=1)).not_to_have_text("Page not found")


@pytest.fixture
def pages(db) -> int:
    """A chapter (c1), a term (ttft) and a question, all published; returns the question's id."""
    from apps.courses.models import Chapter, Part
    from apps.glossary.models import Term
    from apps.quiz.models import Question

    chapter = Chapter.objects.create(slug="c1", part=Part.objects.create(slug="p", title="P", order=1), order=1,
                                     title="C1", summary="s", body="b")
    Term.objects.create(slug="ttft", term="Time to first token", definition="Latency to the first token.").chapters.set(
        [chapter])
    question = Question.objects.create(slug="q1", kind="open", level="core", prompt="What is prefill?", answer="A pass.")
    question.chapters.set([chapter])
    return question.pk


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 200), ("/learn", 200), ("/learn/", 200), ("/learn/map", 200), ("/learn/c1", 200),
        ("/learn/no-such-chapter", 404), ("/glossary/ttft", 200), ("/glossary/no-such-term", 404),
        ("/practice/questions/{question}", 200), ("/practice/questions/999999", 404), ("/practice/questions/abc", 404),
        ("/practice/session/abc/summary", 200),
        ("/lab/sweeps/123", 200), ("/flashcards/review", 200), ("/signup", 200),
        ("/nope", 404), ("/learn/a/b", 404), ("/practice/questions", 404), ("/flashcards/nope", 404),
        ("/wp-login.php", 404),
    ],
)
def test_the_server_knows_the_client_routes(client, pages, path, status):
    """A page about one chapter, term or question is 404 when there is none by that name (it was HTTP 200 with the
    not-found shell)."""
    response = client.get(path.format(question=pages))
    assert response.status_code == status
    assert b'<div id="root">' in response.content
