"""A small plan derived by hand: three chapters (one a prerequisite of another), ten cards with known FSRS states, an
interview five days out, 50 minutes a day. The recall figures are FSRS-6's forgetting curve and recall-stability
formula written out here, with the default parameters w0..w20, not the scheduler's code."""

import math
from datetime import UTC, date, datetime, timedelta

from fsrs import Scheduler

from apps.flashcards.scheduling import DEFAULT_PARAMETERS, REVIEW, DayClock, Memory
from apps.plans.planner import CardIn, ChapterIn, build_plan, reading_order

W = DEFAULT_PARAMETERS
DECAY = -W[20]
FACTOR = 0.9 ** (1 / DECAY) - 1
TODAY = date(2026, 3, 2)  # a Monday
INTERVIEW = TODAY + timedelta(days=5)
CLOCK = DayClock("UTC", rollover_hour=4)  # the learner studies at midday: day start (04:00) + 8 h


def midday(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


def recall(days: int, stability: float) -> float:
    """R = (1 + FACTOR · t / S)^DECAY, t in whole days."""
    return (1 + FACTOR * days / stability) ** DECAY


def stability_after_good(stability: float, difficulty: float, days: int) -> float:
    """S' = S · (1 + e^w8 · (11 − D) · S^−w9 · (e^(w10·(1−R)) − 1)) for a Good review after ``days``."""
    r = recall(days, stability)
    return stability * (1 + math.exp(W[8]) * (11 - difficulty) * stability ** -W[9] * (math.exp(W[10] * (1 - r)) - 1))


def card(card_id: int, topic: str, stability: float, reviewed_days_ago: int, due_in_days: int) -> CardIn:
    return CardIn(id=card_id, topics=(topic,), memory=Memory(
        state=REVIEW, step=None, stability=stability, difficulty=5.0,
        due=midday(TODAY + timedelta(days=due_in_days)), last_review=midday(TODAY - timedelta(days=reviewed_days_ago))))


CHAPTERS = [ChapterIn("b", "B", 20, prerequisites=("a",)), ChapterIn("a", "A", 10), ChapterIn("c", "C", 15)]
# Nine cards reviewed yesterday and not due before the interview; card 10 (S = 2 days, reviewed two days ago) is due
# tomorrow.
CARDS = ([card(n, "kv-cache", 10.0 * n, 1, 60) for n in range(1, 6)]
         + [card(n, "batching", 10.0 * n, 1, 60) for n in range(6, 10)] + [card(10, "batching", 2.0, 2, 1)])
ACCURACY = {"kv-cache": 0.5, "batching": 0.8}


def plan():
    return build_plan(today=TODAY, interview=INTERVIEW, minutes_per_day=50, days_off=[], chapters=CHAPTERS,
                      cards=CARDS, accuracy=ACCURACY, scheduler=Scheduler(enable_fuzzing=False), clock=CLOCK)


def test_prerequisites_come_first():
    assert [chapter.slug for chapter in reading_order(CHAPTERS)] == ["a", "b", "c"]


def test_the_days_hold_what_the_minutes_allow_in_order():
    days = plan().days
    assert [d.date for d in days] == [TODAY + timedelta(days=n) for n in range(5)]
    # Monday: the practice set on the weakest topics first (15 min; B still fits beside it), then A (10) and B (20):
    # 45 of 50 minutes; C (15) does not fit the 5 left.
    assert (days[0].practice_topics, days[0].chapters, days[0].reviews) == (["kv-cache", "batching"], ["a", "b"], 0)
    assert days[0].minutes == 45.0
    # Tuesday: card 10's review (10 s), the practice set (15 min), C (15 min): 30 min 10 s.
    assert (days[1].chapters, days[1].reviews, days[1].practice_topics) == (["c"], 1, ["kv-cache", "batching"])
    assert days[1].minutes == round(30 + 10 / 60, 1)
    # Wednesday: the last day before the two review-only days: the 30-minute mock interview, then practice (15).
    assert days[2].mock_interview and days[2].practice_topics and not days[2].chapters and days[2].minutes == 45.0
    # Thursday and Friday: review only; card 10 is next due round(S') days after Tuesday (S' from the formula).
    s_after = stability_after_good(2.0, 5.0, days=3)
    next_due = TODAY + timedelta(days=1 + round(s_after))
    assert [d.review_only for d in days] == [False, False, False, True, True]
    assert [d.reviews for d in days[3:]] == [int(day.date == next_due) for day in days[3:]]
    assert round(s_after) >= 4  # so the hand derivation below holds: no second review before the interview


def test_predicted_recall_on_the_day_is_fsrs_forgetting_curve():
    result = plan()
    by_topic = {topic.topic: topic for topic in result.topics}
    # Cards reviewed yesterday: 6 days to the interview's midday.
    kv = sum(recall(6, 10.0 * n) for n in range(1, 6)) / 5
    # Batching: four like those, and card 10 reviewed Tuesday (4 days before) with its new stability.
    batching = (sum(recall(6, 10.0 * n) for n in range(6, 10)) + recall(4, stability_after_good(2.0, 5.0, 3))) / 5
    assert math.isclose(by_topic["kv-cache"].recall, kv, rel_tol=1e-9)
    assert math.isclose(by_topic["batching"].recall, batching, rel_tol=1e-9)
    assert math.isclose(by_topic["kv-cache"].readiness, (kv + 0.5) / 2, rel_tol=1e-9)
    assert math.isclose(result.readiness, ((kv + 0.5) / 2 * 5 + (batching + 0.8) / 2 * 5) / 10, rel_tol=1e-9)
    assert result.unread == [] and result.reviews_left == 0
    assert result.advice.startswith("Practise kv-cache (50% so far)")


def test_too_few_minutes_drop_chapters_and_say_so():
    short = build_plan(today=TODAY, interview=TODAY + timedelta(days=3), minutes_per_day=10, days_off=[TODAY.weekday()],
                       chapters=CHAPTERS, cards=[], accuracy={}, scheduler=Scheduler(enable_fuzzing=False),
                       clock=CLOCK)
    # Monday off; Tuesday and Wednesday are the only study days: both review-only would leave none to learn, so the
    # review-only tail needs more than two study days. Tuesday reads A (10 min); Wednesday B alone (20 > 10 minutes:
    # a chapter longer than a day takes a day of its own); C is dropped.
    assert [d.day_off for d in short.days] == [True, False, False]
    assert [d.chapters for d in short.days] == [[], ["a"], ["b"]]
    assert short.unread == ["c"] and "C" in short.advice


def test_cards_never_studied_are_new_cards_within_the_daily_limit():
    """30 cards added but never studied: 20 on the first day (the learner's limit), 10 on the next, none of them
    counted as reviews; 30 s each fits the 60 minutes."""
    fresh = [CardIn(id=n, topics=("kv-cache",), memory=Memory(state=0, step=0, stability=None, difficulty=None,
                                                              due=midday(TODAY), last_review=None)) for n in range(30)]
    result = build_plan(today=TODAY, interview=INTERVIEW, minutes_per_day=60, days_off=[], chapters=[], cards=fresh,
                        accuracy={}, scheduler=Scheduler(enable_fuzzing=False), clock=CLOCK, new_per_day=20)
    assert [d.new_cards for d in result.days] == [20, 10, 0, 0, 0] and not any(d.cards_to_add for d in result.days)
    assert result.days[0].reviews == 0


def test_a_senior_plan_fits_design_exercises_where_the_minutes_allow():
    """The same course at 75 minutes a day with two design exercises (25 min each) to place, at most one a day.
    Monday: practice (15), then A, B and C (10 + 20 + 15): 60 minutes, 15 left, too few for an exercise. Tuesday:
    card 10's review (10 s) and practice (15), no chapter left: 59 min 50 s left, the first exercise. Wednesday: the
    mock interview (30) and practice (15): 30 left, the second. Thursday and Friday hold reviews only."""
    result = build_plan(today=TODAY, interview=INTERVIEW, minutes_per_day=75, days_off=[], chapters=CHAPTERS,
                        cards=CARDS, accuracy=ACCURACY, scheduler=Scheduler(enable_fuzzing=False), clock=CLOCK,
                        design_exercises=["chat", "moe"])
    days = result.days
    assert days[0].chapters == ["a", "b", "c"] and days[0].minutes == 60.0
    assert [d.design_exercise for d in days] == [None, "chat", "moe", None, None]
    assert days[1].minutes == round(15 + 10 / 60 + 25, 1) and days[2].minutes == 70.0
    # Without exercises to place, nothing changes.
    assert all(d.design_exercise is None for d in plan().days)
