"""Kubernetes in the Lab: from the GPU-scheduling chapter to the Pending-pod debugger, the quota gates on a phone, and
a node rotation whose capacity dip grows when the PodDisruptionBudget is taken away."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_chapter_to_pending_pod_debugger_finds_the_taint_then_the_gpus(site, desktop):
    page, _ = desktop
    page.goto(f"{site.url}/learn/kubernetes-gpu-scheduling")
    page.get_by_role("region", name="In the Lab").get_by_role("link", name="k8s-pending").click()
    expect(page).to_have_url(re.compile(r"/lab/k8s-pending"))
    event = page.get_by_test_id("k8s-event")
    # cpu-a has no gpu label; the three GPU nodes carry nvidia.com/gpu=present:NoSchedule.
    expect(event).to_contain_text("0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                                  "3 node(s) had untolerated taint {nvidia.com/gpu: present}.")
    expect(page.get_by_test_id("k8s-fix")).to_contain_text("add a toleration for nvidia.com/gpu:NoSchedule")
    shot(page, "k8s-pending-taint")
    page.get_by_label("Toleration nvidia.com/gpu:NoSchedule").select_option("yes")
    # h100-a has 8 − 6 = 2 free, h100-b 0: both short of GPUs; a100-a and cpu-a fail the gpu=h100 selector.
    expect(event).to_contain_text("0/4 nodes are available: 2 Insufficient nvidia.com/gpu, "
                                  "2 node(s) didn't match Pod's node affinity/selector.")
    expect(page.get_by_test_id("k8s-fix")).to_contain_text("request ≤ 2 GPUs")
    page.get_by_label("Priority").fill("1000")
    expect(page.locator("p.lab-note").filter(has_text="preempting 1 lower-priority pod(s) on h100-a")).to_be_visible()
    page.get_by_label("GPUs the batch job holds on h100-a").fill("4")
    page.get_by_label("Priority").fill("0")
    expect(page.get_by_test_id("k8s-phase")).to_have_text("Running")
    expect(event).to_contain_text("Successfully assigned inference/vllm-0 to h100-a")
    assert "tolerate=yes" in page.url


def test_quota_gates_on_a_phone_show_where_the_request_stops(site, phone):
    page, _ = phone
    page.goto(f"{site.url}/lab/k8s-quota-gates")
    expect(page.get_by_test_id("k8s-serving")).to_have_text("8 of 8")
    page.get_by_label("Namespace quota requests.nvidia.com/gpu (blank: none)").fill("10")
    # (10 − 0) // 2 GPUs per replica = 5 replicas admitted.
    expect(page.get_by_test_id("k8s-serving")).to_have_text("5 of 8")
    expect(page.get_by_test_id("k8s-stopped-at")).to_have_text("namespace ResourceQuota")
    expect(page.locator(".lab-gates code").filter(has_text="exceeded quota: gpu-quota, requested: "
                                                          "requests.nvidia.com/gpu=2")).to_be_visible()
    page.get_by_label("Instances the zone can give").fill("0")
    # 1 existing node × 4 replicas: the zone's stockout now stops it first.
    expect(page.get_by_test_id("k8s-serving")).to_have_text("4 of 8")
    expect(page.get_by_test_id("k8s-stopped-at")).to_have_text("instance availability")


def test_rotation_without_a_pdb_drops_serving_and_a_model_cache_shortens_the_dip(site, desktop):
    page, _ = desktop
    page.goto(f"{site.url}/lab/k8s-rotation")
    # Surge 1 under minAvailable 12: never below 12; done at 300 + 3 × 810 s.
    expect(page.get_by_test_id("k8s-min-serving")).to_have_text("12 (need 12)")
    expect(page.get_by_test_id("k8s-duration")).to_have_text("2,730 s")
    expect(page.locator("svg[aria-label='Serving replicas during the rotation']")).to_be_visible()
    page.get_by_label("PDB minAvailable (0: none)").fill("0")
    # maxUnavailable first: surge 0 with unavailable 0 is a setup Kubernetes refuses (the API answers 400).
    page.get_by_label("maxUnavailable (nodes)").fill("1")
    page.get_by_label("maxSurge (nodes)").fill("0")
    expect(page.get_by_test_id("k8s-min-serving")).to_have_text("0 (need 12)")
    shot(page, "k8s-rotation-no-pdb")
    page.get_by_label("Model cache (no download)").select_option("yes")
    # Starts take 120 + 60 + 30 = 210 s, shorter than the 300 s node provisioning: serving never falls below 8.
    expect(page.get_by_test_id("k8s-min-serving")).to_have_text("8 (need 12)")
    page.get_by_label("PDB minAvailable (0: none)").fill("16")
    page.get_by_label("Model cache (no download)").select_option("no")
    expect(page.get_by_test_id("k8s-stuck")).to_contain_text("Cannot evict pod as it would violate the pod's disruption budget")
