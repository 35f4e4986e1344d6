"""A study plan from today to an interview date, as plain functions over dataclasses (no database, no clock).

The plan walks the days in order and spends each study day's minutes in this order:
1. the flashcard reviews FSRS says are due that day (overdue ones first), each rated Good, as the learner is
   expected to; a review costs REVIEW_SECONDS, and what does not fit stays due for the next day (cards never
   studied are new cards, step 4, within the learner's new cards a day);
2. on the mock-interview day (the last study day before the review-only days), the timed mock interview;
3. a practice set of PRACTICE_MINUTES on the weakest topics met so far at the target level (never practised ones
   first), when the next chapter still fits beside it;
4. chapters, unread prerequisites first, then in curriculum order, whole chapters while they fit (a chapter longer
   than a whole day is read alone on a day of its own), each adding its cards the learner does not hold yet at
   NEW_CARD_SECONDS each (the ones that do not fit wait for the next day);
5. the practice set after all, if step 3 left it out and the minutes allow;
6. for a senior or staff interview, one design exercise of DESIGN_MINUTES (the capacity-planning round) when the
   minutes left allow: the learner's exercises in the order given (not attempted first, then lowest best score).
The last REVIEW_ONLY_DAYS study days hold only reviews. Days off hold nothing.

Predicted recall: each card of a topic followed through the plan (every planned review moves its FSRS memory), then
FSRS's retrievability at midday of the interview day; a card never studied counts 0. Readiness of a topic is the mean of its
predicted recall and the learner's practice accuracy at the target level (0 when never practised).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from fsrs import Scheduler

from apps.flashcards.scheduling import NEW, DayClock, Memory, retrievability, review

REVIEW_SECONDS = 10  # one review: read, recall, rate
NEW_CARD_SECONDS = 30  # a new card: first sight and its learning steps
PRACTICE_MINUTES = 15
MOCK_MINUTES = 30
DESIGN_MINUTES = 25  # read the brief, propose a deployment, read the grade, fix it once
REVIEW_ONLY_DAYS = 2
GOOD = 3
MAX_SAME_DAY_STEPS = 4  # a learning card seen again the same day, at most this many times


@dataclass(frozen=True)
class ChapterIn:
    slug: str
    title: str
    minutes: int
    prerequisites: tuple[str, ...] = ()
    new_cards: tuple[int, ...] = ()  # cards of the chapter the learner does not hold


@dataclass(frozen=True)
class CardIn:
    id: int
    topics: tuple[str, ...]
    memory: Memory | None  # None: not in the learner's collection yet


@dataclass
class Day:
    date: date
    day_off: bool = False
    review_only: bool = False
    reviews: int = 0
    chapters: list[str] = field(default_factory=list)
    new_cards: int = 0  # first studied that day, within the daily limit
    cards_to_add: int = 0  # of them, cards of the plan's chapters not yet in the collection
    practice_topics: list[str] = field(default_factory=list)
    mock_interview: bool = False
    design_exercise: str | None = None
    minutes: float = 0.0


@dataclass(frozen=True)
class TopicReadiness:
    topic: str
    cards: int
    recall: float
    accuracy: float | None
    readiness: float


@dataclass(frozen=True)
class Plan:
    days: list[Day]
    topics: list[TopicReadiness]
    readiness: float
    unread: list[str]  # chapters the minutes do not reach
    reviews_left: int  # reviews still due at the interview that the minutes did not reach
    advice: str


def reading_order(chapters: list[ChapterIn]) -> list[ChapterIn]:
    """Curriculum order, except that a chapter's unread prerequisites come before it."""
    by_slug = {chapter.slug: chapter for chapter in chapters}
    placed: list[ChapterIn] = []
    seen: set[str] = set()

    def place(chapter: ChapterIn, trail: frozenset[str]) -> None:
        if chapter.slug in seen or chapter.slug in trail:
            return
        for prerequisite in chapter.prerequisites:
            if prerequisite in by_slug:
                place(by_slug[prerequisite], trail | {chapter.slug})
        seen.add(chapter.slug)
        placed.append(chapter)

    for chapter in chapters:
        place(chapter, frozenset())
    return placed


STUDY_HOUR = timedelta(hours=8)  # study happens this long after the learner's day begins (noon, with a 4 am rollover)


def _study(memory: Memory | None, moment: datetime, end: datetime, scheduler: Scheduler) -> tuple[Memory, int]:
    """A card rated Good at ``moment``, and again while its learning steps fall before ``end`` (the day's end):
    (memory, reviews)."""
    memory = memory or Memory(state=NEW, step=0, stability=None, difficulty=None, due=moment, last_review=None)
    reviews = 0
    while reviews < MAX_SAME_DAY_STEPS:
        memory = review(memory, rating=GOOD, now=moment, scheduler=scheduler)
        reviews += 1
        if memory.due >= end:
            break
        moment = max(moment, memory.due)
    return memory, reviews


def build_plan(*, today: date, interview: date, minutes_per_day: int, days_off: Iterable[int],
               chapters: list[ChapterIn], cards: list[CardIn], accuracy: dict[str, float],
               scheduler: Scheduler, clock: DayClock, new_per_day: int = 20,
               design_exercises: Iterable[str] = ()) -> Plan:
    """The plan (see the module's docstring). Days are the learner's (``clock``); ``days_off`` are weekdays
    (0 Monday ... 6 Sunday); ``accuracy`` is the practice score (0..1) by topic at the target level; ``scheduler``
    has fuzzing off, so the plan is repeatable; ``new_per_day`` is the learner's limit of new cards a day (cards in
    the collection never studied, then the cards of the chapters the plan has read, in that order);
    ``design_exercises`` are the slugs to plan, in order (empty below a senior interview)."""
    off = set(days_off)
    dates = [today + timedelta(days=n) for n in range((interview - today).days)]
    study = [day for day in dates if day.weekday() not in off]
    review_only = set(study[-REVIEW_ONLY_DAYS:]) if len(study) > REVIEW_ONLY_DAYS else set()
    learning_days = [day for day in study if day not in review_only]
    mock_day = learning_days[-1] if learning_days else None
    memory = {card.id: card.memory for card in cards}
    pending_chapters = reading_order(chapters)
    # new cards: those in the collection never studied (as the review queue shows them), then the chapters' ones
    pending_new = [card.id for card in cards if card.memory is not None and card.memory.state == NEW]
    topics_of = {card.id: card.topics for card in cards}
    pending_designs = list(design_exercises)
    days = []
    for day in dates:
        plan = Day(date=day, day_off=day.weekday() in off, review_only=day in review_only)
        days.append(plan)
        if plan.day_off:
            continue
        budget, moment, end = minutes_per_day * 60.0, clock.start_of(day) + STUDY_HOUR, clock.start_of(day + timedelta(1))
        due = sorted((m.due, card_id) for card_id, m in memory.items()
                     if m is not None and m.state != NEW and m.due < end)
        for _, card_id in due:
            if budget < REVIEW_SECONDS:
                break
            memory[card_id], count = _study(memory[card_id], moment, end, scheduler)
            plan.reviews += count
            budget -= count * REVIEW_SECONDS
        if day == mock_day and budget >= MOCK_MINUTES * 60:
            plan.mock_interview = True
            budget -= MOCK_MINUTES * 60
        if not plan.review_only:
            practice = PRACTICE_MINUTES * 60
            has_topics = bool(accuracy) or any(topics_of.values())
            reserved = has_topics and budget >= practice and (
                not pending_chapters or budget - practice >= pending_chapters[0].minutes * 60)
            budget -= practice if reserved else 0  # kept for every day the next chapter still fits beside it
            while pending_chapters and (pending_chapters[0].minutes * 60 <= budget
                                        or (not plan.chapters and budget == minutes_per_day * 60.0)):
                chapter = pending_chapters.pop(0)
                plan.chapters.append(chapter.slug)
                budget -= chapter.minutes * 60
                pending_new.extend(chapter.new_cards)
            while pending_new and budget >= NEW_CARD_SECONDS and plan.new_cards < new_per_day:
                card_id = pending_new.pop(0)
                plan.cards_to_add += memory.get(card_id) is None
                memory[card_id], _ = _study(memory.get(card_id), moment, end, scheduler)
                plan.new_cards += 1
                budget -= NEW_CARD_SECONDS
            if not reserved and has_topics and budget >= practice:
                reserved, budget = True, budget - practice
            if reserved:  # chosen once the day's cards are studied: today's chapters' topics count as met
                plan.practice_topics = _weakest(topics_of, memory, accuracy)
            if pending_designs and budget >= DESIGN_MINUTES * 60:
                plan.design_exercise = pending_designs.pop(0)
                budget -= DESIGN_MINUTES * 60
        plan.minutes = round(minutes_per_day - max(budget, 0) / 60, 1)
    topics = _readiness(cards, memory, accuracy, clock.start_of(interview) + STUDY_HOUR, scheduler)
    total = sum(topic.cards for topic in topics)
    overall = sum(topic.readiness * topic.cards for topic in topics) / total if total else 0.0
    reviews_left = sum(1 for m in memory.values()
                       if m is not None and m.state != NEW and m.due < clock.start_of(interview))
    return Plan(days=days, topics=topics, readiness=overall, unread=[c.slug for c in pending_chapters],
                reviews_left=reviews_left, advice=_advice(topics, [c.title for c in pending_chapters]))


def _weakest(topics_of: dict[int, tuple[str, ...]], memory: dict[int, Memory | None], accuracy: dict[str, float],
             count: int = 3) -> list[str]:
    """The topics to practise: among those met so far (a card studied or planned), never practised first, then the
    lowest accuracy; every topic when none is met yet."""
    met = {topic for card_id, known in memory.items() if known is not None for topic in topics_of.get(card_id, ())}
    candidates = met or {topic for topics in topics_of.values() for topic in topics} | set(accuracy)
    return sorted(candidates, key=lambda topic: (accuracy.get(topic, -1.0), topic))[:count]


def _readiness(cards: list[CardIn], memory: dict[int, Memory | None], accuracy: dict[str, float], on: datetime,
               scheduler: Scheduler) -> list[TopicReadiness]:
    recall: dict[str, list[float]] = {}
    for card in cards:
        for topic in card.topics:
            known = memory.get(card.id)
            recall.setdefault(topic, []).append(
                (retrievability(known, now=on, scheduler=scheduler) or 0.0) if known is not None else 0.0)
    result = []
    for topic in sorted(recall):
        mean = sum(recall[topic]) / len(recall[topic])
        score = accuracy.get(topic)
        result.append(TopicReadiness(topic=topic, cards=len(recall[topic]), recall=mean, accuracy=score,
                                     readiness=(mean + (score or 0.0)) / 2))
    return result


def _advice(topics: list[TopicReadiness], unread: list[str]) -> str:
    """What would raise readiness most: the biggest gap, recall or accuracy, weighted by the topic's cards."""
    if unread:
        shown = ", ".join(unread[:3]) + (f" and {len(unread) - 3} more" if len(unread) > 3 else "")
        return f"The minutes do not reach every chapter: more minutes a day, or a later date, would add {shown}."
    if not topics:
        return "Add decks to your flashcards and practise, so the plan has something to measure."
    recall_gap = max(topics, key=lambda topic: (1 - topic.recall) * topic.cards)
    accuracy_gap = max(topics, key=lambda topic: (1 - (topic.accuracy or 0.0)) * topic.cards)
    if (1 - (accuracy_gap.accuracy or 0.0)) >= (1 - recall_gap.recall):
        done = "never practised" if accuracy_gap.accuracy is None else f"{accuracy_gap.accuracy:.0%} so far"
        return f"Practise {accuracy_gap.topic} ({done}): it would raise readiness most."
    return f"Review the {recall_gap.topic} cards (predicted recall {recall_gap.recall:.0%}): it would raise " \
           f"readiness most."
