"""The investigation games: from the diagnosis chapter to the diagnosis game (signed out: played, on no account), from a
Kubernetes chapter to the incident game signed in (scored and saved, past attempts by their symptom, a reload resumes
where the learner was), and the five-question limit on a phone."""

import re

import pytest
from playwright.sync_api import expect

from tests.journeys.conftest import shot, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_diagnosis_chapter_to_the_game_signed_out(site, desktop):
    page, _ = desktop
    page.goto(f"{site.url}/learn/diagnosis-framework")
    page.get_by_role("link", name="diagnosis game").click()
    expect(page).to_have_url(re.compile(r"/practice/diagnosis$"))
    expect(page.get_by_test_id("investigation-signed-out")).to_contain_text("your scores are not kept on any account")
    # Scenarios come in slug order: the first is the agent loop that re-sends its history.
    expect(page.locator(".symptom")).to_contain_text("Prefill tokens per second tripled")
    expect(page.get_by_test_id("investigation-remaining")).to_have_text("(5 of 5 questions left)")
    page.get_by_role("group", name="Evidence").get_by_role("button", name=re.compile("Calls per session")).click()
    expect(page.get_by_test_id("evidence-calls")).to_contain_text("each re-sending the whole conversation")
    expect(page.get_by_test_id("investigation-remaining")).to_have_text("(4 of 5 questions left)")
    page.get_by_role("button", name="Workload-bound").click()
    result = page.get_by_test_id("investigation-result")
    expect(result).to_contain_text("Right")
    # Right after one question: 1 − 0.1 = 90 %.
    expect(page.get_by_test_id("investigation-score")).to_have_text("Score 90 % after 1 question · on no account (signed out)")
    expect(result.locator(".evidence-telling")).to_have_count(2)
    shot(page, "diagnosis-investigation-result")


def test_kubernetes_chapter_to_the_incident_game_signed_in_is_scored_and_saved(site, desktop):
    page, _ = desktop
    sign_up(page, site.url, "sre")
    page.goto(f"{site.url}/learn/kubernetes-gpu-scheduling")
    page.get_by_role("link", name="Kubernetes incident game").click()
    expect(page).to_have_url(re.compile(r"/practice/incidents$"))
    expect(page).to_have_title("Kubernetes incident game · Practice · LLM-serving kit")
    expect(page.get_by_test_id("investigation-signed-out")).to_have_count(0)
    expect(page.locator(".symptom")).to_contain_text("CrashLoopBackOff within seconds")
    evidence = page.get_by_role("group", name="Evidence")
    evidence.get_by_role("button", name=re.compile("kubectl logs --previous")).click()
    expect(page.get_by_test_id("evidence-logs")).to_contain_text("vllm serve: error: unrecognized arguments: --swap-space 16")
    evidence.get_by_role("button", name=re.compile("container state")).click()
    expect(page.get_by_test_id("evidence-describe")).to_contain_text("Exit Code:    2")
    page.get_by_role("button", name="An engine flag the server refuses").click()
    # Right after two questions: 1 − 2 × 0.1 = 80 %.
    expect(page.get_by_test_id("investigation-score")).to_have_text("Score 80 % after 2 questions · saved to your account")
    page.get_by_role("button", name="Next scenario").click()
    expect(page.locator(".symptom")).to_contain_text("never Ready")
    page.get_by_role("button", name="Namespace GPU quota exhausted").click()
    expect(page.get_by_test_id("investigation-result")).to_contain_text(
        "Not quite: it is probes that give up before the model has loaded")
    expect(page.get_by_test_id("investigation-score")).to_have_text("Score 0 % after 0 questions · saved to your account")
    expect(page.get_by_test_id("investigation-tally")).to_contain_text("1/2 right, score 0.8")
    history = page.get_by_test_id("investigation-history")
    expect(history.locator("li")).to_have_count(2)
    # Past attempts read by their symptom, not their slug.
    expect(history.locator("li").first).to_have_text(re.compile(r"never Ready.*: wrong, score 0 % after 0 questions$"))
    expect(history).not_to_contain_text("k8s-liveness-kills-long-load")
    saved = page.request.get(f"{site.url}/api/v1/diagnosis/attempts/").json()
    assert [(a["scenario"], a["score"]) for a in saved["results"]] == [
        ("k8s-liveness-kills-long-load", 0.0), ("k8s-crashloop-removed-flag", 0.8)]
    # A reload resumes the game at the third scenario with the score so far; "Start over" goes back to the first.
    page.reload()
    expect(page.get_by_test_id("investigation-tally")).to_contain_text("1/2 right, score 0.8 · scenario 3 of")
    expect(page.locator(".symptom")).not_to_contain_text("never Ready")
    page.get_by_role("button", name="Start over").click()
    expect(page.get_by_test_id("investigation-tally")).to_contain_text("0/0 right, score 0.0 · scenario 1 of")
    expect(page.locator(".symptom")).to_contain_text("CrashLoopBackOff within seconds")


def test_five_questions_at_most_on_a_phone(site, phone):
    page, _ = phone
    page.goto(f"{site.url}/practice/incidents")
    evidence = page.get_by_role("group", name="Evidence")
    expect(evidence.get_by_role("button")).to_have_count(5)
    for index in range(5):
        evidence.get_by_role("button").nth(index).click()
        expect(page.get_by_test_id("investigation-remaining")).to_have_text(f"({4 - index} of 5 questions left)")
    expect(evidence.get_by_role("button", disabled=False)).to_have_count(0)
    page.get_by_role("button", name="An engine flag the server refuses").click()
    expect(page.get_by_test_id("investigation-score")).to_have_text("Score 50 % after 5 questions · on no account (signed out)")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width
