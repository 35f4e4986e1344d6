"""A reader on a phone reads the tokenization diagram: each token's piece and id sit inside its own chip, no two
chips' labels overlap, and the labels are readable (11 px or more on screen). Before, a 600-unit row shrank to the
phone's width (labels about 6 px) and a 6-digit id under a one-letter piece ran into its neighbours."""

import itertools

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot
from tests.journeys.test_diagrams_play import chapter_with

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# the sample with the most digits and symbols: many one-character pieces over long ids
NUMBERS = "The H100 moves 3.35 TB/s; 2,048 tokens × 128 KiB = 268,435,456 bytes."

LABELS = """svg => [...svg.querySelectorAll(':scope > g')].map(g => {
  const [piece, id] = g.querySelectorAll(':scope > text');
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; };
  return {piece: box(piece), id: box(id), size: parseFloat(getComputedStyle(id).fontSize)
          * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width};
})"""


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_token_chips_hold_their_labels_apart_and_readable(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(f"{site.url}/learn/{chapter_with('tokenization')}")
    figure = page.get_by_test_id("diagram-tokenization").first
    figure.get_by_test_id("diagram-text").fill(NUMBERS)
    expect(figure.get_by_test_id("diagram-numbers")).to_contain_text("tokens", timeout=15_000)
    svg = figure.get_by_test_id("diagram-svg")
    labels = svg.evaluate(LABELS)
    assert len(labels) > 20, labels
    for kind_of in ("piece", "id"):
        rows: dict[float, list] = {}
        for label in labels:
            rows.setdefault(round(label[kind_of][2]), []).append(label[kind_of])
        for row in rows.values():
            row.sort()
            for left, right in itertools.pairwise(row):
                assert left[1] <= right[0] + 0.5, f"{kind_of} labels overlap: {left} and {right}"
    smallest = min(label["size"] for label in labels)
    assert smallest >= 11, f"labels are {smallest:.1f} px on screen"
    svg.scroll_into_view_if_needed()
    page.wait_for_timeout(1200)  # the blocks glide to their new places: the picture once they are there
    shot(page, f"tokenization-chips-{kind}")
