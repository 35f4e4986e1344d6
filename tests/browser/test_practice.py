"""A practice session in the browser: numeric, choice, drag-and-drop by mouse and by keyboard, self-rating, summary."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORDER = ["Tokenize", "Prefill", "Decode", "Detokenize"]
BINS = {"Prefill of a 4k prompt": "Compute-bound", "Decode at batch 1": "Memory-bound", "Large GEMM": "Compute-bound", "KV cache read": "Memory-bound"}


def seed():
    from apps.courses.models import Chapter, Part
    from apps.quiz.kinds import validate_key
    from apps.quiz.models import Question, Topic

    part = Part.objects.create(slug="serving", title="Serving", order=1)
    chapters = {slug: Chapter.objects.create(slug=slug, part=part, order=i, title=title, summary="s", body="b")
                for i, (slug, title) in enumerate([("memory-hierarchy", "Memory hierarchy"), ("request-path", "The request path")], 1)}
    specs = [
        ("numeric", "memory", "memory-hierarchy", {"numeric": {"value": 16, "unit": "GiB", "tolerance": 0.01}}),
        ("single_choice", "roofline", "memory-hierarchy", {"options": [{"text": "HBM bandwidth", "correct": True}, {"text": "Tensor core FLOPs"}, {"text": "PCIe latency"}]}),
        ("ordering", "request-path", "request-path", {"items": ORDER}),
        ("categorize", "request-path", "request-path", {"bins": ["Compute-bound", "Memory-bound"], "items": [{"text": t, "bin": b} for t, b in BINS.items()]}),
        ("open", "scheduler", "request-path", {}),
    ]
    for kind, topic, chapter, key in specs:
        question = Question.objects.create(slug=f"browser-{kind.replace('_', '-')}", kind=kind, level="core", prompt=f"The {kind} prompt",
                                           answer=f"The {kind} model answer", key=validate_key(kind, key))
        question.topics.set([Topic.objects.get_or_create(slug=topic)[0]])
        question.chapters.set([chapters[chapter]])


def items(page):
    return [text.replace("⠿", "").strip() for text in page.get_by_test_id("dnd-item").all_inner_texts()]


def answer_ordering_by_mouse(page):
    for target, text in enumerate(ORDER):
        current = items(page)
        if current[target] != text:
            source = page.get_by_test_id("dnd-item").nth(current.index(text))
            source.drag_to(page.get_by_test_id("dnd-item").nth(target))
            page.wait_for_function("([t, i]) => document.querySelectorAll('[data-testid=dnd-item]')[i].textContent.includes(t)", arg=[text, target])
    assert items(page) == ORDER


def answer_categorize_by_keyboard(page):
    for text, bin_name in BINS.items():
        chip = page.get_by_test_id("dnd-item").filter(has_text=text)
        chip.focus()
        page.keyboard.press("Space")
        page.keyboard.press("1" if bin_name == "Compute-bound" else "2")
        page.keyboard.press("Space")
        assert f"Dropped {text} in {bin_name}" in page.get_by_test_id("dnd-announcer").inner_text()
    assert page.get_by_test_id("bin-1").get_by_test_id("dnd-item").count() == 2


def test_practice_session_end_to_end(live_server, page):
    seed()
    page.goto(f"{live_server.url}/practice")
    page.get_by_label("Questions").fill("5")
    page.get_by_role("button", name="Start practice").click()
    for _ in range(5):
        runner = page.get_by_test_id("runner")
        runner.wait_for()
        kind = runner.get_attribute("data-question-kind")
        if kind == "numeric":
            box = page.get_by_label("Your answer")
            box.fill("16 XB")  # said, not a button that silently stays disabled
            page.get_by_test_id("numeric-problem").wait_for()
            assert "“XB” is not a unit for this answer" in page.get_by_test_id("numeric-problem").inner_text()
            box.fill("17,179,869,184 B")  # a unit typed after the number counts as chosen (the list says GiB)
            assert page.get_by_test_id("numeric-problem").count() == 0
        elif kind == "single_choice":
            page.get_by_label("PCIe latency").check()  # deliberately wrong: roofline becomes the weakest topic
        elif kind == "ordering":
            answer_ordering_by_mouse(page)
        elif kind == "categorize":
            answer_categorize_by_keyboard(page)
        if kind == "open":
            page.get_by_role("button", name="Reveal answer").click()
            page.get_by_text("The open model answer").wait_for()
            page.keyboard.press("3")  # good
        else:
            page.get_by_role("button", name="Check answer").click()
        next_button = page.get_by_role("button", name="Next question").or_(page.get_by_role("button", name="See summary"))
        next_button.wait_for()
        result = page.get_by_test_id("result").last
        # An open question is self-rated, not graded: the result says what the learner rated.
        expected = {"single_choice": "Not quite", "open": "You rated: Good"}.get(kind, "Correct")
        assert result.locator("h3").inner_text().startswith(expected), (kind, result.inner_text())
        assert f"The {kind} model answer" in result.inner_text()
        next_button.click()
    page.get_by_test_id("summary").wait_for()
    # 3 right (1.0 each) + 1 wrong (0) + open rated good (0.8) = 3.8 / 5 = 76 %.
    assert page.get_by_test_id("summary-score").inner_text() == "76 %"
    weakest = page.get_by_test_id("weakest-topics")
    assert weakest.locator("li").first.inner_text().startswith("roofline — 0 %")
    link = weakest.get_by_role("link", name="Memory hierarchy").first
    assert link.get_attribute("href") == "/learn/memory-hierarchy"


def test_ordering_by_keyboard_on_the_checks_page(live_server, page):
    from apps.quiz.models import Question, Topic

    seed()
    ordering = Question.objects.get(kind="ordering")
    ordering.topics.add(Topic.objects.create(slug="drag-and-drop"))
    page.goto(f"{live_server.url}/practice/checks")
    page.get_by_role("link", name="The ordering prompt").click()
    page.get_by_test_id("dnd-item").first.wait_for()
    for target, text in enumerate(ORDER):
        current = items(page)
        position = current.index(text)
        if position == target:
            continue
        page.get_by_test_id("dnd-item").nth(position).focus()
        page.keyboard.press("Space")
        for _ in range(position - target):
            page.keyboard.press("ArrowUp")
        page.keyboard.press("Space")
        assert f"Dropped {text}, position {target + 1} of 4" in page.get_by_test_id("dnd-announcer").inner_text()
    assert items(page) == ORDER
    page.get_by_role("button", name="Check answer").click()
    assert page.get_by_test_id("result").locator("h3").inner_text().startswith("Correct")


def test_diagnosis_game_and_interview_report(live_server, page):
    from apps.quiz.models import DiagnosisScenario, Question

    seed()
    DiagnosisScenario.objects.create(
        slug="empty-queue", symptom="TTFT is high with an empty queue.", answer="compute", telling=["queue"],
        evidence=[{"key": "queue", "kind": "metrics", "label": "Queue time", "text": "p99 0.01 s\n"}], sources=["s"],
        reasoning="Long prompts: prefill is compute-bound.")
    page.goto(f"{live_server.url}/practice/diagnosis")
    page.get_by_text("TTFT is high with an empty queue.").wait_for()
    page.get_by_role("button", name="Memory-bound").click()
    result = page.get_by_test_id("investigation-result")
    assert "it is compute-bound" in result.inner_text() and "prefill is compute-bound" in result.inner_text()

    Question.objects.exclude(kind="numeric").update(status="draft")
    page.goto(f"{live_server.url}/practice/interview")
    page.get_by_label("Questions").fill("1")
    page.get_by_role("button", name="Start interview").click()
    assert page.get_by_test_id("timer").inner_text().startswith("Time left")
    page.get_by_label("Your answer").fill("16")
    page.get_by_role("button", name="Check answer").click()
    page.get_by_role("button", name="See the report").click()
    page.get_by_text("Interview report").wait_for()
    assert page.get_by_test_id("summary-score").inner_text() == "100 %"
    assert "0 over time" in page.get_by_test_id("interview-time").inner_text()
