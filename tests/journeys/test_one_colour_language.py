"""One colour language: a learner who meets compute and memory in a chapter's roofline diagram and opens it in the
Lab sees the same colours there; the roofline on the Lab's step-time page uses the chapter's colours, not its own."""

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHAPTER = "/learn/accelerators-beyond-nvidia"
CONCEPTS = ("compute", "memory", "decode")


def diagram_colours(figure) -> dict[str, str]:
    """The fill each concept's legend swatch in a diagram is painted with (the swatch's SVG rect)."""
    return {c: figure.locator(f"[data-testid=diagram-legend] li[data-concept={c}] rect").first.evaluate(
        "el => getComputedStyle(el).fill") for c in CONCEPTS}


def lab_colours(page) -> dict[str, str]:
    """The colour of each concept's legend swatch on a Lab page."""
    return {c: page.locator(f".lab-legend li[data-concept={c}] .lab-swatch").first.evaluate(
        "el => getComputedStyle(el).backgroundColor") for c in CONCEPTS}


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_the_same_concept_has_the_same_colour_in_a_chapter_diagram_and_its_lab_page(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(site.url + CHAPTER)
    figure = page.get_by_test_id("diagram-roofline")
    expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
    legend = figure.get_by_test_id("diagram-legend")
    expect(legend.locator("li[data-concept=compute]")).to_contain_text("compute roof")
    expect(legend.locator("li[data-concept=memory]")).to_contain_text("memory roof")
    in_chapter = diagram_colours(figure)
    assert len(set(in_chapter.values())) == len(CONCEPTS), in_chapter  # compute, memory and decode differ
    # The compute roof line is drawn in the compute colour, the memory roof in the memory colour.
    lines = figure.get_by_test_id("diagram-svg").locator("line[stroke-width='3']")
    assert [lines.nth(i).evaluate("el => getComputedStyle(el).stroke") for i in range(2)] == [in_chapter["memory"], in_chapter["compute"]]
    figure.scroll_into_view_if_needed()
    shot(page, f"colour-language-chapter-{kind}")

    figure.get_by_test_id("diagram-lab-link").click()
    page.wait_for_url("**/lab/step-time**")
    lab_legend = page.locator(".lab-legend li[data-concept=compute]").first
    expect(lab_legend).to_contain_text("compute roof", timeout=15_000)
    expect(page.locator(".lab-legend li[data-concept=memory]").first).to_contain_text("memory roof")
    assert lab_colours(page) == in_chapter
    # The Lab's step-time bars name Compute and Memory in the same colours too.
    page.locator(".lab-legend li[data-concept=compute]").first.scroll_into_view_if_needed()
    shot(page, f"colour-language-lab-{kind}")
