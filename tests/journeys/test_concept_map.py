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


TITLE_HEIGHT = """el => { const range = document.createRange(); range.selectNodeContents(el);
  return Math.max(...[...range.getClientRects()].map((r) => r.height)); }"""


def _chapter_with_both_neighbours(page, base_url):
    graph = page.request.get(f"{base_url}/api/v1/concept-map/").json()
    needs = {n["slug"]: set() for n in graph["nodes"]}
    leads = {n["slug"]: set() for n in graph["nodes"]}
    for edge in graph["edges"]:
        needs[edge["target"]].add(edge["source"])
        leads[edge["source"]].add(edge["target"])
    titles = {n["slug"]: n["title"] for n in graph["nodes"]}
    slug = next(s for s in titles if needs[s] and leads[s])
    return slug, titles[slug], needs[slug], leads[slug]


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_pick_a_chapter_centres_it_legibly_and_marks_its_neighbours(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(f"{site.url}/learn/map")
    expect(page.get_by_test_id("map-part").first).to_be_visible()
    slug, title, needs, leads = _chapter_with_both_neighbours(page, site.url)

    # Fitted to the screen, chapter titles would be under 10 px: they give way to boxes, a part's title stays legible.
    node = page.get_by_test_id(f"map-node-{slug}")
    expect(node).to_have_class(re.compile("label-small"))
    if kind == "desktop":  # part titles stay legible; hovering a box shows its title at a readable size
        part_title = page.get_by_test_id("map-part").first.locator("h3")
        assert part_title.evaluate(TITLE_HEIGHT) >= 11
        other = page.get_by_test_id(f"map-node-{next(iter(leads))}")
        other.hover()
        peek = other.get_by_role("tooltip")
        expect(peek).to_be_visible()
        assert peek.evaluate(TITLE_HEIGHT) >= 11
        page.mouse.move(0, 0)
    shot(page, f"concept-map-fit-{kind}")

    page.get_by_label("Go to a chapter").select_option(slug)
    expect(node).to_have_attribute("data-relation", "chosen")
    expect(node).not_to_have_class(re.compile("label-small"))
    flow = page.get_by_test_id("map-flow")

    def centred() -> bool:
        box, area = node.bounding_box(), flow.bounding_box()
        return (abs(box["x"] + box["width"] / 2 - (area["x"] + area["width"] / 2)) < 8
                and abs(box["y"] + box["height"] / 2 - (area["y"] + area["height"] / 2)) < 8)

    page.wait_for_function("() => true")
    for _ in range(40):
        if centred():
            break
        page.wait_for_timeout(100)
    assert centred(), (node.bounding_box(), flow.bounding_box())
    height = node.locator(".map-title").evaluate(TITLE_HEIGHT)
    assert height >= 11, height

    for prerequisite in needs:
        expect(page.get_by_test_id(f"map-node-{prerequisite}")).to_have_attribute("data-relation", "prerequisite")
    for dependent in leads:
        expect(page.get_by_test_id(f"map-node-{dependent}")).to_have_attribute("data-relation", "dependent")
    expect(page.get_by_test_id("map-prerequisites").get_by_role("button")).to_have_count(len(needs))
    expect(page.get_by_test_id("map-dependents").get_by_role("button")).to_have_count(len(leads))
    expect(page.locator(".react-flow__edge.neighbour")).to_have_count(len(needs) + len(leads))
    expect(page.get_by_test_id("reading-path").get_by_role("link").last).to_have_text(title)
    if kind == "phone":
        flow.scroll_into_view_if_needed()
    shot(page, f"concept-map-picked-{kind}")
