"""The study plan through the API: set, read, adapt, export as a calendar; bad input named; the plan is the
learner's own."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.flashcards.services import deck_add

pytestmark = pytest.mark.django_db
URL = "/api/v1/study-plan/"


@pytest.fixture
def course(db):
    """Part p with chapters a (10 min), b (20 min, needs a) and c (15 min), each with a question card on a topic."""
    from apps.courses.models import Chapter, Part
    from apps.flashcards.content import sync_all_cards
    from apps.quiz.models import Question, Topic

    part = Part.objects.create(slug="p", title="P", order=1)
    chapters = {}
    for order, (slug, minutes) in enumerate((("a", 10), ("b", 20), ("c", 15)), start=1):
        chapters[slug] = Chapter.objects.create(slug=slug, part=part, order=order, title=slug.upper(), summary="s",
                                                body="b", minutes=minutes)
        question = Question.objects.create(slug=f"q-{slug}", kind="open", level="mid", prompt=f"About {slug}?",
                                           answer="Yes.")
        question.chapters.set([chapters[slug]])
        question.topics.set([Topic.objects.get_or_create(slug=f"topic-{slug}")[0]])
    chapters["b"].prerequisites.set([chapters["a"]])
    sync_all_cards()
    return chapters


def learner_day():
    """A new learner's day: their time zone and day rollover (UTC, 04:00 by default), not the UTC date, which runs
    a day ahead between midnight and the rollover."""
    from apps.flashcards.models import SrsSettings
    from apps.flashcards.state import day_clock

    return day_clock(SrsSettings()).day_of(timezone.now())


def body(days: int = 14, **changes) -> dict:
    return {"interview_date": (learner_day() + timedelta(days=days)).isoformat(), "minutes_per_day": 55,
            "days_off": [], "level": "mid", "parts": [], **changes}


def test_a_new_learner_gets_a_plan_to_the_date(course, learner_client):
    response = learner_client.put(URL, body(), format="json")
    assert response.status_code == 200, response.json()
    plan = response.json()
    assert plan["today"] == learner_day().isoformat()
    assert len(plan["days"]) == 14
    first = plan["days"][0]
    # 55 minutes: the practice set (15), a then b (prerequisite first, 30); their two new cards (1); c waits
    assert [c["slug"] for c in first["chapters"]] == ["a", "b"] and first["chapters"][0]["url"] == "/learn/a"
    assert first["new_cards"] == first["cards_to_add"] == 2 and first["reviews"] == 0
    assert [c["slug"] for c in plan["days"][1]["chapters"]] == ["c"]
    assert plan["days"][-1]["review_only"] and plan["days"][-2]["review_only"] and plan["days"][-3]["mock_interview"]
    assert {t["topic"] for t in plan["topics"]} == {"topic-a", "topic-b", "topic-c"}
    assert learner_client.get(URL).json() == plan


def test_the_plan_moves_with_what_was_done(course, learner_client):
    """Day 1 done: chapter a read, its cards in the collection, a practice answer on topic-a right: today's plan
    moves b and c up, and topic-a's readiness rises by half its new accuracy."""
    from apps.quiz.models import PracticeAnswer, PracticeSession, Question

    before = learner_client.put(URL, body(), format="json").json()
    deck_add(user=learner_client.user, slug="all", now=timezone.now())
    assert learner_client.put("/api/v1/chapters/a/progress/", {"status": "understood"}, format="json").status_code == 200
    session = PracticeSession.objects.create(user=learner_client.user, question_ids=[])
    PracticeAnswer.objects.create(session=session, question=Question.objects.get(slug="q-a"), score=1.0, correct=True)
    plan = learner_client.get(URL).json()
    assert [c["slug"] for c in plan["days"][0]["chapters"]] == ["b", "c"]  # a is read: b and c move up
    assert (plan["days"][0]["new_cards"], plan["days"][0]["cards_to_add"]) == (3, 0)  # the collection's three cards, never studied, are today's new cards
    topic = {t["topic"]: t for t in plan["topics"]}["topic-a"]
    was = {t["topic"]: t for t in before["topics"]}["topic-a"]
    assert topic["accuracy"] == 1.0 and was["accuracy"] is None
    assert round(topic["readiness"] - was["readiness"], 3) == round((topic["recall"] - was["recall"] + 1.0) / 2, 3)
    assert plan["readiness"] > before["readiness"]


@pytest.mark.parametrize("changes, field", [
    ({"interview_date": "2020-01-01"}, "interview_date"), ({"interview_date": "not a date"}, "interview_date"),
    ({"minutes_per_day": 0}, "minutes_per_day"), ({"minutes_per_day": 721}, "minutes_per_day"),
    ({"days_off": [7]}, "days_off"), ({"days_off": [0, 1, 2, 3, 4, 5, 6]}, "days_off"),
    ({"level": "guru"}, "level"), ({"parts": ["no-such-part"]}, "parts"), ({"parts": ["p", "Bad Slug"]}, "parts"),
    ({"minutes": 30}, "minutes"),
])
def test_bad_input_names_the_field(course, learner_client, changes, field):
    response = learner_client.put(URL, body(**changes), format="json")
    assert response.status_code == 400, response.json()
    assert [name.split(".")[0] for name in response.json()["fields"]] == [field]  # "parts.1": the second part
    assert learner_client.get(URL).status_code == 404  # nothing was saved


@pytest.mark.parametrize("days", [0, 366])
def test_the_date_is_after_today_and_within_a_year(course, learner_client, days):
    response = learner_client.put(URL, body(days=days), format="json")
    assert response.status_code == 400 and list(response.json()["fields"]) == ["interview_date"]


def test_signed_out_learners_are_asked_to_sign_in(api_client):
    assert api_client.get(URL).status_code == 401
    assert api_client.put(URL, body(), format="json").status_code == 401


def test_each_learner_sees_only_their_plan(course, learner_client, make_user):
    from rest_framework.test import APIClient

    learner_client.put(URL, body(), format="json")
    other = APIClient()
    other.force_authenticate(make_user())
    assert other.get(URL).status_code == 404
    assert learner_client.delete(URL).status_code == 204 and learner_client.get(URL).status_code == 404


def test_the_calendar_has_a_day_per_study_day_and_the_interview(course, learner_client):
    learner_client.put(URL, body(days=7, days_off=[5, 6]), format="json")
    plan = learner_client.get(URL).json()
    response = learner_client.get(f"{URL}calendar.ics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/calendar")
    text = response.content.decode()
    assert text.startswith("BEGIN:VCALENDAR\r\n") and text.endswith("END:VCALENDAR\r\n")
    study_days = [d for d in plan["days"] if not d["day_off"]]
    assert text.count("BEGIN:VEVENT") == len(study_days) + 1
    assert "SUMMARY:Interview\r\n" in text
    assert f"DTSTART;VALUE=DATE:{study_days[0]['date'].replace('-', '')}" in text


def test_a_senior_plan_schedules_design_exercises_not_yet_passed(learner_client, course):
    from apps.exercises.models import DesignAttempt, DesignExercise

    made = {slug: DesignExercise.objects.create(
        slug=slug, title=f"Exercise {slug}", category="chat", level="senior", brief="b", model_slug="llama-3.1-8b",
        traffic={}, slo={}, constraints={}, search={}, key_points=["a", "b"]) for slug in ("ex-a", "ex-b", "ex-c")}
    user = learner_client.user
    for slug, score in (("ex-a", 100), ("ex-b", 80)):
        DesignAttempt.objects.create(user=user, exercise=made[slug], deployment={}, grade={}, score=score)
    mid = learner_client.put(URL, body(level="mid", minutes_per_day=120), format="json").json()
    assert all(day["design_exercise"] is None for day in mid["days"])
    senior = learner_client.put(URL, body(level="senior", minutes_per_day=120), format="json").json()
    planned = [day["design_exercise"] for day in senior["days"] if day["design_exercise"]]
    # ex-c never attempted first, then ex-b (best 80); ex-a is already at full marks.
    assert [d["slug"] for d in planned] == ["ex-c", "ex-b"]
    assert planned[0] == {"slug": "ex-c", "title": "Exercise ex-c", "url": "/practice/design/ex-c"}
    calendar = learner_client.get(URL + "calendar.ics").content.decode()
    assert "design exercise" in calendar
