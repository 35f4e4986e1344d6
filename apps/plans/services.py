"""Study plans: the learner's settings in, the plan (apps.plans.planner) out, built from their chapter progress, their
flashcards' FSRS memory and their practice accuracy, read fresh on every call."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from django.db.models import Avg

from apps.core.exceptions import InvalidInput, NotFound
from apps.courses.models import Level, Part, ProgressStatus
from apps.courses.services import chapter_queryset, progress_by_slug
from apps.exercises.services import exercise_list
from apps.flashcards.content import CHAPTER_DECK_PREFIX
from apps.flashcards.models import Card, SourceType, UserCard
from apps.flashcards.presets import scheduler_config
from apps.flashcards.state import day_clock, memory_of, settings_get
from apps.plans import planner
from apps.plans.models import StudyPlan
from apps.quiz.models import PracticeAnswer, Question, topic_title

MAX_DAYS_AHEAD = 365


def learner_today(user, now: datetime) -> date:
    return day_clock(settings_get(user=user)).day_of(now)


def plan_save(*, user, now: datetime, interview_date: date, minutes_per_day: int, days_off: list[int], level: str,
              parts: list[str]) -> StudyPlan:
    today = learner_today(user, now)
    if interview_date <= today:
        raise InvalidInput("The interview date must be after today.", field="interview_date")
    if interview_date > today + timedelta(days=MAX_DAYS_AHEAD):
        raise InvalidInput(f"The interview date must be within {MAX_DAYS_AHEAD} days.", field="interview_date")
    if len(set(days_off)) >= 7:
        raise InvalidInput("Leave at least one day of the week to study.", field="days_off")
    known = set(Part.objects.filter(slug__in=parts).values_list("slug", flat=True))
    if unknown := [slug for slug in parts if slug not in known]:
        raise InvalidInput(f"No such part: {', '.join(unknown)}.", field="parts")
    plan, _ = StudyPlan.objects.update_or_create(user=user, defaults=dict(
        interview_date=interview_date, minutes_per_day=minutes_per_day, days_off=sorted(set(days_off)), level=level,
        parts=parts))
    return plan


def plan_delete(*, user) -> None:
    StudyPlan.objects.filter(user=user).delete()


def _saved(user) -> StudyPlan:
    plan = StudyPlan.objects.filter(user=user).first()
    if plan is None:
        raise NotFound("You have no study plan yet: set your interview date first.")
    return plan


def _inputs(user, saved: StudyPlan) -> tuple[list[planner.ChapterIn], list[planner.CardIn], dict[str, float]]:
    queryset = chapter_queryset(user).order_by("part__order", "order").prefetch_related("prerequisites")
    chapters = list(queryset.filter(part__slug__in=saved.parts) if saved.parts else queryset)
    read = {slug for slug, status in progress_by_slug(user).items() if status == ProgressStatus.UNDERSTOOD}
    held = {uc.card_id: uc for uc in UserCard.objects.filter(user=user, suspended=False).select_related("card")}
    deck_slugs = {f"{CHAPTER_DECK_PREFIX}{chapter.slug}": chapter.slug for chapter in chapters}
    cards_of: dict[str, list[int]] = {}
    scope: set[int] = set()
    for card_id, deck_slug in Card.objects.filter(decks__slug__in=deck_slugs, retired=False,
                                                  owner__isnull=True).values_list("id", "decks__slug"):
        cards_of.setdefault(deck_slugs[deck_slug], []).append(card_id)
        scope.add(card_id)
    if not saved.parts:
        scope |= set(held)
    unread = [chapter for chapter in chapters if chapter.slug not in read]
    chapter_inputs = [planner.ChapterIn(
        slug=chapter.slug, title=chapter.title, minutes=chapter.minutes,
        prerequisites=tuple(p.slug for p in chapter.prerequisites.all() if p.slug not in read),
        new_cards=tuple(sorted(card_id for card_id in set(cards_of.get(chapter.slug, ())) if card_id not in held)))
        for chapter in unread]
    question_of = dict(Card.objects.filter(pk__in=scope, source_type=SourceType.QUESTION).values_list("id", "source_id"))
    topics_of: dict[int, list[str]] = {}
    for question_id, topic in Question.topics.through.objects.filter(
            question_id__in=question_of.values()).values_list("question_id", "topic__slug"):
        topics_of.setdefault(question_id, []).append(topic)
    cards = [planner.CardIn(id=card_id, topics=tuple(sorted(topics_of.get(question_of[card_id], ()))),
                            memory=memory_of(held[card_id]) if card_id in held else None)
             for card_id in sorted(scope) if card_id in question_of]
    cards += [planner.CardIn(id=card_id, topics=(), memory=memory_of(held[card_id]))
              for card_id in sorted(scope) if card_id not in question_of and card_id in held]
    accuracy = {topic: float(score) for topic, score in PracticeAnswer.objects.filter(
        session__user=user, question__level=saved.level, question__topics__isnull=False).values_list(
        "question__topics__slug").annotate(score=Avg("score")).values_list("question__topics__slug", "score")}
    return chapter_inputs, cards, accuracy


def plan_get(*, user, now: datetime) -> dict:
    saved = _saved(user)
    srs = settings_get(user=user)
    clock = day_clock(srs)
    today = clock.day_of(now)
    chapters, cards, accuracy = _inputs(user, saved)
    titles = {chapter.slug: chapter for chapter in chapters}
    designs = design_exercises_to_plan(user, saved.level)
    plan = planner.build_plan(today=today, interview=saved.interview_date, minutes_per_day=saved.minutes_per_day,
                              days_off=saved.days_off, chapters=chapters, cards=cards, accuracy=accuracy,
                              scheduler=scheduler_config(srs).scheduler(fuzzing=False), clock=clock,
                              new_per_day=srs.new_cards_per_day, design_exercises=list(designs))
    return {
        "interview_date": saved.interview_date.isoformat(), "minutes_per_day": saved.minutes_per_day,
        "days_off": saved.days_off, "level": saved.level, "parts": saved.parts, "today": today.isoformat(),
        "days": [_day_body(day, titles, saved.level, designs) for day in plan.days],
        "topics": [{"topic": t.topic, "title": topic_title(t.topic), "cards": t.cards, "recall": round(t.recall, 4),
                    "accuracy": None if t.accuracy is None else round(t.accuracy, 4),
                    "readiness": round(t.readiness, 4)} for t in plan.topics],
        "readiness": round(plan.readiness, 4), "unread": [titles[slug].title for slug in plan.unread],
        "reviews_left": plan.reviews_left, "advice": plan.advice,
    }


def design_exercises_to_plan(user, level: str) -> dict[str, str]:
    """Slug → title of the design exercises a senior or staff plan schedules: never attempted first, then by the
    learner's best score (those already at full marks left out); none for a core or mid interview."""
    if level not in (Level.SENIOR, Level.STAFF):
        return {}
    exercises = exercise_list(user=user).order_by("slug")
    ranked = sorted((e for e in exercises if (e.best_score or 0) < 100),
                    key=lambda e: (e.best_score is not None, e.best_score or 0, e.level != level, e.slug))
    return {e.slug: e.title for e in ranked}


def _day_body(day: planner.Day, chapters: dict[str, planner.ChapterIn], level: str, designs: dict[str, str]) -> dict:
    practice = None
    if day.practice_topics:
        practice = {"topics": day.practice_topics, "titles": [topic_title(slug) for slug in day.practice_topics],
                    "level": level,
                    "url": f"/practice?topic={day.practice_topics[0]}&level={level}"}
    return {"date": day.date.isoformat(), "day_off": day.day_off, "review_only": day.review_only,
            "reviews": day.reviews, "new_cards": day.new_cards, "cards_to_add": day.cards_to_add,
            "mock_interview": day.mock_interview,
            "design_exercise": {"slug": day.design_exercise, "title": designs[day.design_exercise],
                                "url": f"/practice/design/{day.design_exercise}"} if day.design_exercise else None,
            "minutes": day.minutes, "practice": practice,
            "chapters": [{"slug": slug, "title": chapters[slug].title, "minutes": chapters[slug].minutes,
                          "url": f"/learn/{slug}"} for slug in day.chapters]}


def plan_calendar(*, user, now: datetime) -> str:
    """The plan's study days as an iCalendar file (RFC 5545): one all-day event a day, and the interview."""
    body = plan_get(user=user, now=now)
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//LLM-serving interview kit//study plan//EN",
             "CALSCALE:GREGORIAN"]
    for day in body["days"]:
        if day["day_off"]:
            continue
        tasks = [f"{len(day['chapters'])} chapter(s)" if day["chapters"] else "",
                 f"{day['reviews']} reviews" if day["reviews"] else "",
                 f"{day['new_cards']} new cards" if day["new_cards"] else "",
                 "practice set" if day["practice"] else "", "mock interview" if day["mock_interview"] else "",
                 "design exercise" if day["design_exercise"] else ""]
        details = "; ".join(chapter["title"] for chapter in day["chapters"])
        lines += _event(user.pk, day["date"], stamp, "Interview prep: " + (", ".join(t for t in tasks if t) or "rest"),
                        f"About {day['minutes']:g} minutes. {details}".strip())
    lines += _event(user.pk, body["interview_date"], stamp, "Interview", "The day of the interview.")
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _event(user_id: int, day: str, stamp: str, summary: str, description: str) -> list[str]:
    start = date.fromisoformat(day)
    return ["BEGIN:VEVENT", f"UID:study-{user_id}-{start:%Y%m%d}@llm-serving-kit", f"DTSTAMP:{stamp}",
            f"DTSTART;VALUE=DATE:{start:%Y%m%d}", f"DTEND;VALUE=DATE:{start + timedelta(days=1):%Y%m%d}",
            f"SUMMARY:{_escape(summary)}", f"DESCRIPTION:{_escape(description)}", "END:VEVENT"]
