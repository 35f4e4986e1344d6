"""Stored HTML never reaches the review screen: when sanitizing an author's text leaves nothing, the card shows the
text as text, not as markup (before, `front_html || front` inserted the raw text and only the CSP stopped it)."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.journeys.conftest import sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FRONT = '<iframe src="javascript:document.title=\'pwned\'"></iframe>'
BACK = '<video src="x" onerror="document.title=\'pwned\'"></video>'


def test_a_card_whose_text_sanitizes_to_nothing_shows_it_as_text(live_server, desktop):
    from django.contrib.auth import get_user_model

    from apps.core.models import Status
    from apps.flashcards.models import Card, SourceType, UserCard
    from apps.glossary.models import Term

    term = Term.objects.create(slug="hostile", term=FRONT, definition=BACK, status=Status.PUBLISHED)
    card = Card.objects.get(source_type=SourceType.TERM, source_id=term.pk)  # synced on commit
    assert (card.front, card.back) == (FRONT, BACK)
    assert (card.front_html, card.back_html) == ("", "")  # the sanitizer keeps none of either side

    page, _ = desktop
    sign_up(page, live_server.url, "reader")
    user = get_user_model().objects.get(username="reader")
    UserCard.objects.create(user=user, card=card, due=timezone.now() - timedelta(minutes=1), added_at=timezone.now())
    page.goto(f"{live_server.url}/flashcards/review")
    expect(page.get_by_test_id("card-front")).to_contain_text('<iframe src="javascript:')  # shown as text
    page.keyboard.press("Space")
    back = page.get_by_test_id("card-back")
    expect(back).to_contain_text('<video src="x" onerror=')  # shown as text
    assert page.locator("[data-testid=flashcard] video, [data-testid=flashcard] iframe").count() == 0
    assert page.title() != "pwned"
