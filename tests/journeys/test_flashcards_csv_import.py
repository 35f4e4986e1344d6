"""A learner keeps cards in a spreadsheet: they upload it as CSV from the flashcards settings, the page polls the
import job and says what came in, and the cards are theirs in the browser; a second upload adds nothing. Desk and
phone width. The job is run by the server process itself (`eager`)."""

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHEET = 'Front,Back\nWhat does TTFT measure?,The time to the first token.\n"Why batch decode, at all?",Throughput.\n'


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_a_spreadsheet_becomes_own_cards(site, open_page, tmp_path, eager, kind):
    path = tmp_path / "my-cards.csv"
    path.write_text(SHEET, encoding="utf-8")
    page, _ = open_page(kind)
    sign_up(page, site.url, f"sheets-{kind}")
    page.goto(f"{site.url}/flashcards/settings")
    page.get_by_label("Import from Anki (.apkg) or a CSV file").set_input_files(str(path))
    status = page.get_by_test_id("anki-import-status")
    expect(status).to_have_text("Imported “my-cards.csv”: 2 cards added (2 of your own), 0 schedules updated.")
    page.get_by_label("Import from Anki (.apkg) or a CSV file").set_input_files([])
    page.get_by_label("Import from Anki (.apkg) or a CSV file").set_input_files(str(path))
    expect(status).to_contain_text("0 cards added (0 of your own), 0 schedules updated, 2 rows you had already")
    page.goto(f"{site.url}/flashcards/browse?q=TTFT")
    expect(page.get_by_text("What does TTFT measure?")).to_be_visible()
