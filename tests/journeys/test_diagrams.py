"""Live diagrams in a chapter: every type renders from the simulator API, has a legend and a Lab link, changes its
picture when its control moves (by keyboard), honours reduced motion, and shows the endpoint's own number."""

import pytest
from playwright.sync_api import expect

from apps.core.diagrams import DIAGRAMS
from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "diagram-gallery"


def gallery(names) -> str:
    from apps.courses.models import Chapter, Part
    from apps.courses.services import glossary_entries, render_chapter_body

    body = "## Diagrams\n\n" + "\n\n".join(f"```diagram {name}\n```" for name in names) + "\n"
    part = Part.objects.order_by("order").first()
    Chapter.objects.create(slug=SLUG, part=part, order=999, title="Diagram gallery", summary="Every diagram.",
                           body=body, body_html=render_chapter_body(body, glossary_entries()), status="published")
    return f"/learn/{SLUG}"


def svg_of(figure) -> str:
    return figure.get_by_test_id("diagram-svg").inner_html()


def test_every_diagram_renders_responds_to_the_keyboard_and_links_to_the_lab(site, desktop):
    page, _ = desktop
    page.goto(site.url + gallery(DIAGRAMS))
    for name, spec in DIAGRAMS.items():
        figure = page.get_by_test_id(f"diagram-{name}")
        expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
        expect(figure.get_by_test_id("diagram-legend").locator("li").first).to_be_visible()
        assert figure.get_by_test_id("diagram-lab-link").get_attribute("href").startswith(f"/lab/{spec['lab']}?")
        before = svg_of(figure)
        control = figure.get_by_test_id("diagram-slider")
        if control.count():
            control.first.focus()
            page.keyboard.press("ArrowRight")
        else:
            figure.get_by_test_id("diagram-play").focus()
            page.keyboard.press("Enter")
        page.wait_for_function(
            "([name, before]) => document.querySelector(`[data-testid=diagram-${name}] [data-testid=diagram-svg]`).innerHTML !== before",
            arg=[name, before], timeout=10_000)
        figure.scroll_into_view_if_needed()
        shot(page, f"diagram-{name}-desktop")
    # The static fallback is kept for print and no-JS, hidden while the live diagram shows.
    assert page.locator("figure.diagram .diagram-fallback").first.is_hidden()


def test_a_diagram_shows_the_simulator_endpoints_value(site, desktop):
    page, _ = desktop
    page.goto(site.url + gallery(["kv-growth", "memory-breakdown"]))
    value = page.get_by_test_id("diagram-kv-growth").get_by_test_id("diagram-value")
    expect(value).not_to_have_attribute("data-value", "")
    defaults = {key: p["default"] for key, p in DIAGRAMS["kv-growth"]["params"].items()}
    from django.test import Client

    answer_json = Client().post("/api/v1/simulators/kv-cache/", {**defaults, "batch_size": 1}, content_type="application/json").json()
    assert float(value.get_attribute("data-value")) == pytest.approx(answer_json["bytes_per_sequence"], rel=1e-12)
    fit = page.get_by_test_id("diagram-memory-breakdown").get_by_test_id("diagram-value")
    expect(fit).not_to_have_attribute("data-value", "")
    p = {key: spec["default"] for key, spec in DIAGRAMS["memory-breakdown"]["params"].items()}
    expected = Client().post("/api/v1/simulators/fit/", {**p, "kv_dtype": "bf16"}, content_type="application/json").json()
    assert float(fit.get_attribute("data-value")) == pytest.approx(expected["total_bytes_per_gpu"], rel=1e-12)


def test_reduced_motion_jumps_to_the_end_and_the_phone_fits(site, phone):
    page, _ = phone
    page.emulate_media(reduced_motion="reduce")
    others = ["speculative", "kv-growth", "roofline", "pipeline-bubbles", "ep-all-to-all", "pd-transfer", "autoscaling"]
    page.goto(site.url + gallery(["prefill-decode", *others]))
    figure = page.get_by_test_id("diagram-prefill-decode")
    expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
    assert "diagram-reduced" in figure.get_attribute("class")
    transition = figure.locator("rect.d-anim").first.evaluate("el => getComputedStyle(el).transitionDuration")
    assert transition in ("0s", "")
    figure.get_by_test_id("diagram-play").click()
    # No animation: the last decode step shows at once and play is not left running.
    expect(figure.get_by_test_id("diagram-play")).to_have_attribute("aria-pressed", "false")
    expect(figure.get_by_test_id("diagram-svg")).to_contain_text("decode step 16")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1
    figure.scroll_into_view_if_needed()
    shot(page, "diagram-prefill-decode-phone")
    for name in others:
        other = page.get_by_test_id(f"diagram-{name}")
        expect(other.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
        other.scroll_into_view_if_needed()
        shot(page, f"diagram-{name}-phone")


def test_the_stepper_replays_the_engine_simulations_steps_one_at_a_time(site, desktop):
    page, _ = desktop
    page.goto(site.url + gallery(["batching-stepper"]))
    figure = page.get_by_test_id("diagram-batching-stepper")
    expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
    p = {key: spec["default"] for key, spec in DIAGRAMS["batching-stepper"]["params"].items()}
    from django.test import Client

    body = {"model": p["model"], "gpu": p["gpu"], "max_num_batched_tokens": p["max_num_batched_tokens"],
            "max_num_seqs": p["max_num_seqs"], "trace_steps": 60,
            "workload": {"num_requests": p["num_requests"], "arrival_rate_per_s": p["arrival_rate_per_s"],
                         "prompt_tokens": {"dist": "uniform", "low": 200, "high": 3000},
                         "output_tokens": {"dist": "uniform", "low": 16, "high": 64}}}
    log = Client().post("/api/v1/simulators/engine/", body, content_type="application/json").json()["step_log"]
    slider = figure.get_by_test_id("diagram-slider")
    slider.focus()
    page.keyboard.press("Home")
    for k in range(6):
        svg = figure.get_by_test_id("diagram-svg")
        expect(svg).to_have_attribute("data-step", str(k + 1))
        row = log[k]
        expect(figure.get_by_test_id("diagram-value")).to_have_attribute("data-value", str(row["running"]))
        expect(figure.get_by_test_id("diagram-numbers")).to_contain_text(f"{row['waiting']} waiting")
        page.keyboard.press("ArrowRight")
    shot(page, "diagram-batching-stepper-desktop")


def test_diagrams_read_in_dark_mode(site, desktop):
    page, _ = desktop
    page.emulate_media(color_scheme="dark")
    page.goto(site.url + gallery(["pipeline-bubbles", "batching-stepper", "memory-breakdown"]))
    for name in ("pipeline-bubbles", "batching-stepper", "memory-breakdown"):
        figure = page.get_by_test_id(f"diagram-{name}")
        expect(figure.get_by_test_id("diagram-numbers")).to_be_visible(timeout=15_000)
        # Labels take the page's light foreground on the dark background, not the light theme's dark text.
        fill = figure.locator("svg text").first.evaluate("el => getComputedStyle(el).fill")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert fill == "rgb(230, 233, 238)" and background == "rgb(20, 23, 28)", (name, fill, background)
    page.get_by_test_id("diagram-pipeline-bubbles").scroll_into_view_if_needed()
    shot(page, "diagram-dark-mode-desktop")
