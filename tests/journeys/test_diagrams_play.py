"""Diagrams that play: scrolled into view, a chapter's diagram plays its steps by itself with one line of narration
per step; the reader can pause, step and scrub; under reduced motion it stays still until asked. The sampling chapter
opens with the sampling diagram."""

import time

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def watch_steps(figure, seconds: float) -> list[str]:
    """The player's step, sampled every 100 ms."""
    player = figure.get_by_test_id("diagram-player")
    seen = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seen.append(player.get_attribute("data-player-step"))
        time.sleep(0.1)
    return seen


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_a_diagram_plays_by_itself_when_scrolled_into_view_with_narration(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(site.url + "/learn/prefill-vs-decode")
    figure = page.get_by_test_id("diagram-prefill-decode")
    expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
    narration = figure.get_by_test_id("diagram-narration")
    expect(narration).to_have_attribute("aria-live", "polite")
    player = figure.get_by_test_id("diagram-player")
    # Below the fold and at rest: the outcome, nothing playing.
    expect(player).to_have_attribute("data-playing", "false")
    figure.get_by_test_id("diagram-scrub").scroll_into_view_if_needed()
    page.mouse.wheel(0, 120)  # a reader's scroll, so the diagram sits well inside the screen
    expect(player).to_have_attribute("data-playing", "true")
    seen = watch_steps(figure, 1.2)
    steps = [int(s) for s in seen]
    assert len(set(steps)) >= 3 and steps == sorted(steps), seen  # it advances on its own, forwards
    expect(narration).to_contain_text("Decode step")
    shot(page, f"diagram-playing-{kind}")
    # Pause holds the step; Step moves one on; the scrub goes anywhere, and the narration follows.
    figure.get_by_test_id("diagram-play").click()
    expect(player).to_have_attribute("data-playing", "false")
    held = player.get_attribute("data-player-step")
    time.sleep(0.5)
    assert player.get_attribute("data-player-step") == held
    figure.get_by_test_id("diagram-scrub").fill("0")
    expect(narration).to_contain_text("Prefill: all")
    figure.get_by_test_id("diagram-step").click()
    expect(player).to_have_attribute("data-player-step", "1")
    expect(narration).to_contain_text("Decode step 1:")
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_under_reduced_motion_a_diagram_stays_still(site, open_page, kind):
    page, _ = open_page(kind)
    page.emulate_media(reduced_motion="reduce")
    page.goto(site.url + "/learn/prefill-vs-decode")
    figure = page.get_by_test_id("diagram-prefill-decode")
    expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
    figure.get_by_test_id("diagram-scrub").scroll_into_view_if_needed()
    page.mouse.wheel(0, 120)
    rest = figure.get_by_test_id("diagram-player").get_attribute("data-player-step")
    assert set(watch_steps(figure, 1.5)) == {rest}
    expect(figure.get_by_test_id("diagram-player")).to_have_attribute("data-playing", "false")
    expect(figure.get_by_test_id("diagram-narration")).to_contain_text("Done:")
    # Stepping still works, one still picture at a time.
    figure.get_by_test_id("diagram-step").click()
    expect(figure.get_by_test_id("diagram-narration")).to_contain_text("Prefill: all")
    shot(page, f"diagram-reduced-motion-{kind}")


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_the_sampling_chapter_opens_with_sampling(site, open_page, kind):
    page, _ = open_page(kind)
    page.goto(site.url + "/learn/sampling")
    figure = page.locator("figure.diagram").first
    sampling = figure.get_by_test_id("diagram-sampling")
    expect(sampling).to_be_visible(timeout=15_000)
    expect(sampling.get_by_test_id("diagram-numbers")).to_contain_text("candidates survive")
    assert page.get_by_test_id("diagram-speculative").count() == 0
    sampling.get_by_test_id("diagram-scrub").scroll_into_view_if_needed()
    page.mouse.wheel(0, 120)
    # It plays through logits → temperature → top-k → top-p → the draw, and says which token it drew.
    expect(sampling.get_by_test_id("diagram-narration")).to_contain_text("one token is drawn", timeout=15_000)
    expect(sampling.get_by_test_id("diagram-svg")).to_have_attribute("data-step", "4")
    sampling.get_by_test_id("diagram-scrub").fill("3")
    expect(sampling.get_by_test_id("diagram-narration")).to_contain_text("Top-p 0.90 keeps the smallest set")
    sampling.scroll_into_view_if_needed()
    shot(page, f"diagram-sampling-{kind}")


# The types that tour their own state (the others play their own steps, above); every type in the registry plays.
TOURS = ["tokenization", "kv-growth", "roofline", "paged-blocks", "memory-breakdown", "prefix-hash-chain", "tp-allreduce",
         "token-cost", "moe-load", "throughput-latency", "pipeline-bubbles", "ep-all-to-all", "pd-transfer", "autoscaling"]


def chapter_with(name: str) -> str:
    """The slug of a published chapter that places this diagram."""
    from apps.core.diagrams import diagram_uses
    from apps.courses.models import Chapter

    for chapter in Chapter.objects.filter(status="published", body__contains=f"```diagram {name}").order_by("slug"):
        if any(use.name == name for use in diagram_uses(chapter.body)):
            return chapter.slug
    raise AssertionError(f"no chapter places the {name} diagram")


def scrub(figure):
    """The player's scrub slider (the stepper's is its one slider, diagram-slider)."""
    return figure.get_by_test_id("diagram-player").locator("input[type=range]")


def bring_into_view(page, figure) -> None:
    scrub(figure).scroll_into_view_if_needed()
    page.mouse.wheel(0, 120)  # a reader's scroll, so the player sits well inside the screen


def test_every_diagram_type_is_registered_as_playing():
    from apps.core.diagrams import DIAGRAMS

    assert set(DIAGRAMS) == set(TOURS) | {"prefill-decode", "request-lifecycle", "speculative", "batching-stepper", "sampling"}


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_every_diagram_type_tours_itself_with_narration_in_its_chapter(site, open_page, kind):
    from apps.core.diagrams import DIAGRAMS

    page, _ = open_page(kind)
    for name in DIAGRAMS:
        page.goto(f"{site.url}/learn/{chapter_with(name)}")
        figure = page.get_by_test_id(f"diagram-{name}").first
        expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
        for control in ("diagram-play", "diagram-step"):
            expect(figure.get_by_test_id(control)).to_have_count(1)
        expect(scrub(figure)).to_have_count(1)
        narration = figure.get_by_test_id("diagram-narration")
        expect(narration).to_have_attribute("aria-live", "polite")
        bring_into_view(page, figure)
        expect(narration).not_to_have_text("")
        first = narration.inner_text()
        # It moves on by itself, to another sentence.
        expect(narration).not_to_have_text(first, timeout=12_000)
        shot(page, f"diagram-tour-{name}-{kind}-playing")
        if name in TOURS:
            player = figure.get_by_test_id("diagram-player")
            assert int(player.get_attribute("data-player-step")) >= 1
            # The reader's Step ▸ pauses it and moves one on; the narration follows.
            figure.get_by_test_id("diagram-step").click()
            expect(player).to_have_attribute("data-playing", "false")
            # Scrubbing back to step 1 shows the chapter's own setting again.
            scrub(figure).fill("0")
            expect(narration).to_have_text(first)
        figure.scroll_into_view_if_needed()
        shot(page, f"diagram-tour-{name}-{kind}")
        if kind == "phone":
            assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1, name


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_under_reduced_motion_no_tour_starts_by_itself(site, open_page, kind):
    page, _ = open_page(kind)
    page.emulate_media(reduced_motion="reduce")
    for name in TOURS:
        page.goto(f"{site.url}/learn/{chapter_with(name)}")
        figure = page.get_by_test_id(f"diagram-{name}").first
        expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
        narration = figure.get_by_test_id("diagram-narration")
        bring_into_view(page, figure)
        expect(narration).not_to_have_text("")
        first = narration.inner_text()
        assert set(watch_steps(figure, 1.0)) == {"0"}, name
        assert narration.inner_text() == first
        expect(figure.get_by_test_id("diagram-player")).to_have_attribute("data-playing", "false")
        # Step ▸ still shows the next picture, one at a time.
        figure.get_by_test_id("diagram-step").click()
        expect(figure.get_by_test_id("diagram-player")).to_have_attribute("data-player-step", "1")
        expect(narration).not_to_have_text(first)
    shot(page, f"diagram-tour-reduced-{TOURS[-1]}-{kind}")
