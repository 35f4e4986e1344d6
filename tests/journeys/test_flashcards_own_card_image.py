"""A learner adds an image to their own card from the editor (the upload inserts its Markdown), studies the card with
the image on it, and nobody else can load the image; a file that is not a PNG, JPEG, WebP or GIF is refused."""

import re

import pytest
from playwright.sync_api import expect

from tests.flashcards.test_card_images import png
from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IMAGE_MARKDOWN = re.compile(r"!\[kv-blocks\]\(/api/v1/flashcards/images/(\d+)/\)")


def _write_card_with_image(page, base_url: str, tmp_path) -> str:
    """Writes a basic card whose back shows an uploaded 40×20 PNG; the image's path."""
    picture = tmp_path / "kv-blocks.png"
    picture.write_bytes(png(40, 20))
    page.goto(f"{base_url}/flashcards/add")
    page.get_by_label("Front (Markdown)").fill("What does PagedAttention split the KV cache into?")
    back = page.get_by_label("Back (Markdown)")
    back.fill("Fixed-size blocks:")
    back.focus()  # the image goes in the side written last
    page.get_by_label("Add image to the back", exact=False).set_input_files(str(picture))
    expect(page.get_by_test_id("image-status")).to_have_text(" Image added to the back.")
    expect(back).to_have_value(IMAGE_MARKDOWN)
    path = f"/api/v1/flashcards/images/{IMAGE_MARKDOWN.search(back.input_value()).group(1)}/"
    page.get_by_role("button", name="Add card").click()
    image = page.get_by_test_id("own-card-preview").locator(f'img[src="{path}"]')
    expect(image).to_have_attribute("alt", "kv-blocks")
    page.wait_for_function("img => img.complete && img.naturalWidth === 40", arg=image.element_handle())
    return path


def test_add_an_image_to_an_own_card_and_study_it(site, desktop, tmp_path):
    page, watch = desktop
    sign_up(page, site.url, "illustrator")
    svg = tmp_path / "drawing.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    page.goto(f"{site.url}/flashcards/add")
    watch.expect_status(400, r"/api/v1/flashcards/images/")
    page.get_by_label("Add image to the front", exact=False).set_input_files(str(svg))
    expect(page.get_by_role("alert").first).to_contain_text("PNG, JPEG, WebP or GIF")

    path = _write_card_with_image(page, site.url, tmp_path)
    response = page.request.get(f"{site.url}{path}")
    assert response.status == 200 and response.headers["content-type"] == "image/png"
    assert response.headers["x-content-type-options"] == "nosniff"

    page.goto(f"{site.url}/flashcards/review")
    expect(page.get_by_test_id("card-front")).to_contain_text("What does PagedAttention split")
    page.keyboard.press("Space")
    image = page.get_by_test_id("card-back").locator(f'img[src="{path}"]')
    expect(image).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth === 40", arg=image.element_handle())
    shot(page, "flashcards-own-card-image")
    page.keyboard.press("3")
    expect(page.get_by_test_id("queue-progress")).to_contain_text("Reviewed 1")


def test_on_a_phone_an_image_is_its_owners_only(site, open_page, tmp_path):
    page, _ = open_page("phone", "image-owner-phone")
    sign_up(page, site.url, "pocket")
    path = _write_card_with_image(page, site.url, tmp_path)
    width = page.get_by_test_id("own-card-preview").locator("img").evaluate("img => img.getBoundingClientRect().width")
    assert 0 < width <= page.viewport_size["width"]

    other, watch = open_page("phone", "image-stranger-phone")
    sign_up(other, site.url, "peeker")
    watch.expect_status(404, r"/api/v1/flashcards/images/")
    assert other.request.get(f"{site.url}{path}").status == 404
