"""The concept map: chapters grouped by part with their whole titles, zoom, pan and fit-to-view, and the reading path
to a chosen chapter highlighted."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def viewport_transform(page) -> str:
    return page.locator(".react-flow__viewport").get_attribute("style") or ""


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_concept_map_zooms_pans_groups_and_highlights_a_path(site, open_page, kind):
    from apps.courses.models import Chapter, Part

    page, _ = open_page(kind)
    chapters = list(Chapter.objects.published().order_by("part__order", "order"))
    longest = max(chapters, key=lambda c: len(c.title))
    target = chapters[-1]

    page.goto(f"{site.url}/learn/map")
    expect(page).to_have_title(re.compile("^Concept map"))
    expect(page.get_by_test_id("map-part")).to_have_count(Part.objects.published().count())
    expect(page.get_by_test_id("map-part").first).to_contain_text("1. ")
    # Whole titles, never cut off.
    expect(page.get_by_test_id(f"map-node-{longest.slug}")).to_have_text(longest.title)
    expect(page.locator(".react-flow__edge")).not_to_have_count(0)

    before = viewport_transform(page)
    page.get_by_role("button", name="Zoom In").click()
    expect(page.locator(".react-flow__viewport")).not_to_have_attribute("style", before)
    zoomed = viewport_transform(page)
    box = page.get_by_test_id("map-flow").bounding_box()
    # Drag the empty margin at the top right: the map pans.
    page.mouse.move(box["x"] + box["width"] - 12, box["y"] + 12)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 92, box["y"] + 62, steps=5)
    page.mouse.up()
    expect(page.locator(".react-flow__viewport")).not_to_have_attribute("style", zoomed)
    page.get_by_role("button", name="Fit View").click()

    page.get_by_role("button", name=re.compile(f"^{re.escape(target.title)} \\(")).click()
    path = page.get_by_test_id("reading-path")
    expect(path.get_by_role("link")).not_to_have_count(0)
    expect(path.get_by_role("link").last).to_have_text(target.title)
    expect(page.get_by_test_id(f"map-node-{target.slug}")).to_have_class(re.compile("on-path"))
    expect(page.locator(".react-flow__edge.on-path").first).to_be_attached()
    shot(page, f"concept-map-path-{kind}")
    page.get_by_role("button", name="Show the whole map").click()
