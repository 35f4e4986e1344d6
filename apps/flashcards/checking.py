"""Checking a typed answer on a card made from a numeric question, the way practice checks it.

The learner types a quantity ("140 GB", "1.4e11 bytes", "131,072"); it is graded by practice's own check
(apps.quiz.services.question_check: the question's unit conversion and tolerance), and the answer suggests a
rating: Good when the answer is within the question's tolerance, Again when it is not. Practice grades a numeric
answer right or wrong with no band in between, so there is no "close" grade and no Hard suggestion. Checking
changes nothing: the learner still rates the card, and only the rating moves its schedule.
"""

from __future__ import annotations

from django.http import Http404

from apps.core.exceptions import Conflict, InvalidInput
from apps.flashcards.models import SourceType, UserCard
from apps.quiz.kinds import kind_of
from apps.quiz.models import Question
from apps.quiz.services import question_check

ANSWER_MAX_CHARS = 100
RATING_AGAIN, RATING_GOOD = 1, 3


def card_check(*, user, card_id: int, answer: str) -> dict:
    user_card = UserCard.objects.filter(user=user, card_id=card_id).select_related("card").first()
    if user_card is None:
        raise Http404
    card = user_card.card
    question = (Question.objects.filter(pk=card.source_id).first()
                if card.source_type == SourceType.QUESTION else None)
    if question is None or not kind_of(question.kind).typed_answer:
        raise Conflict("Only cards made from numeric questions are checked; rate this one yourself.")
    answer = answer.strip()
    if not answer:
        raise InvalidInput("Type a number, with its unit if it has one (e.g. 140 GB).", field="answer")
    try:
        result = question_check(question=question, answer={"value": answer})
    except InvalidInput as exc:  # practice's answer.value or answer.unit
        raise InvalidInput(exc.message, field="answer") from exc
    feedback = result.feedback
    return {
        "result": "correct" if result.correct else "wrong",
        "correct": bool(result.correct),
        "expected": feedback["expected"],
        "unit": feedback["unit"],
        "given_in_unit": feedback["given_in_answer_unit"],
        "explanation": result.explanation,
        "suggested_rating": RATING_GOOD if result.correct else RATING_AGAIN,
    }
