"""The manifest explorer: from the vLLM-on-Kubernetes chapter to the annotated manifests, an edit that loses /dev/shm
marked on its line, broken YAML answered with its line, a multi-node replica as a LeaderWorkerSet; a startupProbe too
short for the load on a phone."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_chapter_to_manifest_explorer_edit_and_check(site, desktop):
    page, watch = desktop
    page.goto(f"{site.url}/learn/vllm-on-kubernetes")
    page.get_by_role("region", name="In the Lab").get_by_role("link", name="k8s-manifest").click()
    expect(page).to_have_url(re.compile(r"/lab/k8s-manifest"))
    expect(page).to_have_title("Manifest explorer · Lab · LLM-serving kit")
    expect(page.get_by_test_id("k8s-kinds")).to_have_text("Deployment, Service, HorizontalPodAutoscaler")
    expect(page.get_by_test_id("k8s-mistakes")).to_have_text("none")
    manifest = page.get_by_role("list", name="Annotated manifests")
    expect(manifest.locator("li").filter(has_text="startupProbe:").first).to_contain_text("failureThreshold × periodSeconds")
    textarea = page.get_by_label("Manifests", exact=True)
    text = textarea.input_value()
    assert "medium: Memory" in text
    textarea.fill(text.replace("medium: Memory", "medium: \"\""))
    expect(page.get_by_test_id("k8s-mistakes")).to_have_text("1")
    expect(page.get_by_test_id("k8s-findings")).to_contain_text("without a memory-backed /dev/shm")
    expect(manifest.locator("li.k8s-line-error")).to_have_count(1)
    shot(page, "k8s-manifest-no-shm")
    watch.expect_status(400, "/simulators/k8s-manifest/")
    textarea.fill("kind: Deployment\nspec:\n  template: [unclosed\n")
    expect(page.get_by_test_id("k8s-yaml-error")).to_contain_text("line 4:")
    page.get_by_role("button", name="Back to the generated manifests").click()
    expect(page.get_by_test_id("k8s-mistakes")).to_have_text("none")
    page.get_by_label("Tensor parallel (GPUs per replica)").select_option("16")
    # 16 GPUs on 8-GPU nodes: one replica is a group of 2 pods.
    expect(page.get_by_test_id("k8s-kinds")).to_have_text("LeaderWorkerSet, Service, HorizontalPodAutoscaler")
    expect(page.get_by_label("Manifests", exact=True)).to_have_value(re.compile(r"size: 2"))


def test_short_startup_probe_marked_on_a_phone(site, phone):
    page, _ = phone
    page.goto(f"{site.url}/lab/k8s-manifest?tp=4")
    expect(page.get_by_test_id("k8s-mistakes")).to_have_text("none")
    textarea = page.get_by_label("Manifests", exact=True)
    # The generated startupProbe allows ceil(600 / 10) = 60 failures of 10 s; 6 give up after 60 s.
    textarea.fill(textarea.input_value().replace("failureThreshold: 60", "failureThreshold: 6"))
    expect(page.get_by_test_id("k8s-findings")).to_contain_text("the startupProbe gives up after 60 s, before a 600 s model load ends")
    expect(page.locator("li.k8s-line-error")).to_contain_text("startupProbe:")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width
