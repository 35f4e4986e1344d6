"""Design exercises: listing them, grading an answer (apps.exercises.grading) and keeping signed-in learners'
attempts and their self-rating of the rationale."""

from __future__ import annotations

from django.db.models import Max, OuterRef, Subquery

from apps.core.exceptions import NotFound
from apps.exercises import grading
from apps.exercises.models import DesignAttempt, DesignExercise


def exercise_list(*, user):
    exercises = DesignExercise.objects.visible_to(user)
    if user.is_authenticated:
        best = (DesignAttempt.objects.filter(user=user, exercise=OuterRef("pk")).values("exercise")
                .annotate(best=Max("score")).values("best"))
        return exercises.annotate(best_score=Subquery(best))
    return exercises


def exercise_get(*, user, slug: str) -> DesignExercise:
    exercise = exercise_list(user=user).filter(slug=slug).first()
    if exercise is None:
        raise NotFound(f"No design exercise '{slug}'.")
    return exercise


def attempt_submit(*, user, slug: str, deployment: dict, rationale: str) -> DesignAttempt:
    """Grades the answer; a signed-in learner's attempt is saved, a visitor's is graded and returned unsaved."""
    exercise = exercise_get(user=user, slug=slug)
    grade = grading.grade(exercise, deployment, user=user)
    attempt = DesignAttempt(user=user if user.is_authenticated else None, exercise=exercise,
                            deployment=grade["deployment"], rationale=rationale, grade=grade, score=grade["score"])
    if user.is_authenticated:
        attempt.save()
    return attempt


def attempt_list(*, user, slug: str):
    exercise = exercise_get(user=user, slug=slug)
    return DesignAttempt.objects.filter(user=user, exercise=exercise).select_related("exercise")


def attempt_get(*, user, slug: str, attempt_id: int) -> DesignAttempt:
    attempt = attempt_list(user=user, slug=slug).filter(pk=attempt_id).first()
    if attempt is None:
        raise NotFound(f"No attempt {attempt_id} of yours on '{slug}'.")
    return attempt


def attempt_rate(*, attempt: DesignAttempt, key_points_met: list[int]) -> DesignAttempt:
    attempt.key_points_met = key_points_met
    attempt.save(update_fields=["key_points_met"])
    return attempt


def exercise_page_exists(user, slug: str) -> bool:
    """Whether /practice/design/<slug> shows an exercise to this reader (apps.core.spa answers 404 otherwise)."""
    return DesignExercise.objects.visible_to(user).filter(slug=slug).exists()
