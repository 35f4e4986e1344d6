"""Authored Markdown never carries script into a page: <script>, on* handlers and javascript: links are stripped."""

from html.parser import HTMLParser

import pytest

pytestmark = pytest.mark.django_db
HOSTILE = (
    "Intro.\n\n<script>alert('body')</script>\n\n"
    '<img src="x.png" onerror="alert(1)">\n\n'
    "[click me](javascript:alert(2)) and <a href=\"JaVaScRiPt:alert(3)\">raw link</a>\n\n"
    '<div onclick="alert(4)">div</div> <svg onload="alert(5)"></svg> <iframe src="https://evil.example"></iframe>\n'
)


class Elements(HTMLParser):
    """Collects every start tag with its attributes, as a browser would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, attrs))


def assert_inert(html: str) -> None:
    parser = Elements()
    parser.feed(html)
    for tag, attrs in parser.tags:
        assert tag not in {"script", "iframe", "svg", "object", "embed", "style", "form"}, (tag, html)
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name, html)
            if name in {"href", "src"}:
                assert not (value or "").strip().lower().startswith(("javascript:", "data:", "vbscript:")), value
    assert "<script" not in html.lower()


def test_chapter_body_served_without_script_handlers_or_javascript_links(api_client, content):
    from apps.courses.services import glossary_entries, render_chapter_body

    chapter = content.chapter
    chapter.body = HOSTILE + "\nPrefill is the first phase.\n"
    chapter.body_html = render_chapter_body(chapter.body, glossary_entries())
    chapter.save()
    response = api_client.get(f"/api/v1/chapters/{chapter.slug}/")
    assert response.status_code == 200
    html = response.json()["body_html"]
    assert_inert(html)
    assert "Intro." in html and 'data-term="sec-term"' in html  # the safe parts survive


def test_hostile_glossary_definition_cannot_break_out_of_the_term_marking(api_client, content):
    from apps.courses.services import glossary_entries, render_chapter_body

    term = content.term
    term.definition = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
    term.aliases = ['<script>alert("alias")</script>']
    term.save()
    html = render_chapter_body("Prefill happens first.", glossary_entries())
    assert_inert(html)
    assert 'title="&quot;&gt;&lt;script&gt;' in html  # the definition is escaped into the title attribute


def test_glossary_explanation_served_inert(api_client, content):
    content.term.explanation = HOSTILE
    content.term.save()
    response = api_client.get(f"/api/v1/glossary/{content.term.slug}/")
    assert response.status_code == 200
    assert_inert(response.json()["explanation_html"])


def test_question_prompt_and_model_answer_served_inert(api_client, content):
    question = content.question
    question.prompt = HOSTILE
    question.answer = HOSTILE
    question.save()
    response = api_client.get(f"/api/v1/questions/{question.id}/")
    assert response.status_code == 200
    assert_inert(response.json()["prompt_html"])
    checked = api_client.post(f"/api/v1/questions/{question.id}/check/", {}, format="json")
    assert checked.status_code == 200, checked.json()
    assert_inert(checked.json().get("answer_html", ""))
