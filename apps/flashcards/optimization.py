"""Per-learner FSRS parameter optimization from their own review log.

Why fsrs-rs-python and not ``fsrs[optimizer]``: fsrs-rs is the Rust engine Anki itself runs. Its binding is a
585 KB wheel with no dependencies and fits 10,000 reviews in about 20 ms, whereas py-fsrs's optimizer needs torch
(a multi-GB CUDA install from PyPI) and takes about 25 s for the same log. The fitted 21 FSRS-6 weights feed
straight back into ``fsrs.Scheduler(parameters=...)`` in the request path.

Per preset, as Anki: a job fits the reviews of the cards one deck preset schedules (or, with no preset, those of
the cards no preset covers) and applying it sets that preset's parameters (or the Default's, in the settings).

Method: one training item per review that comes at least one local day after the card's previous review (the
history up to and including it, ``delta_t`` in the learner's calendar days, as fsrs-rs expects). The log is split
in time: items whose last review falls in the latest 20 % of reviews are held out; the fit uses the rest. Log loss
and RMSE(bins) on the held-out items are reported for the current and for the new parameters.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import datetime

import fsrs_rs_python as fsrs_rs
from celery import current_app
from django.db import transaction
from django.utils import timezone
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from apps.core import services as core_services
from apps.core.exceptions import Conflict, InvalidInput
from apps.flashcards import scheduling
from apps.flashcards.models import DeckPreset, JobStatus, OptimizationJob, ReviewLog
from apps.flashcards.presets import assigned_presets, card_presets, preset_get
from apps.flashcards.state import day_clock, settings_get

MIN_REVIEWS = 400
HOLDOUT_SHARE = 0.2

OPTIMIZE_TASK = "flashcards.optimize_parameters"  # enqueued by name: the task module imports this one


def preset_reviews(*, user, preset: DeckPreset | None):
    """The learner's review log for the cards a preset schedules (None: the Default's cards, those no preset
    covers), as Anki fits each preset to its own decks' reviews."""
    logs = ReviewLog.objects.filter(user=user)
    assigned = assigned_presets(user=user)
    if not assigned:
        return logs if preset is None else logs.none()
    covered = card_presets(logs.values("user_card__card_id"), assigned=assigned)
    if preset is None:
        return logs.exclude(user_card__card_id__in=list(covered))
    return logs.filter(user_card__card_id__in=[card_id for card_id, chosen in covered.items() if chosen == preset])


def optimization_job_create(*, user, preset_id: int | None = None) -> OptimizationJob:
    preset = None if preset_id is None else preset_get(user=user, preset_id=preset_id)
    count = preset_reviews(user=user, preset=preset).count()
    if count < MIN_REVIEWS:
        raise InvalidInput(f"Not enough reviews to optimize: {count} (at least {MIN_REVIEWS}).", field="reviews")
    core_services.ensure_broker_available()
    job = OptimizationJob.objects.create(user=user, preset=preset, review_count=count)
    transaction.on_commit(lambda: current_app.signature(OPTIMIZE_TASK, args=(str(job.id),)).apply_async())
    return job


def optimization_job_run(*, job_id: uuid.UUID | str) -> OptimizationJob | None:
    """Claims a queued job, fits and evaluates; safe to run twice (a claimed job is left alone)."""
    if not OptimizationJob.objects.filter(id=job_id, status=JobStatus.QUEUED).update(status=JobStatus.RUNNING):
        return None
    job = OptimizationJob.objects.get(id=job_id)
    try:
        srs = settings_get(user=job.user)
        rows = preset_reviews(user=job.user, preset=job.preset).values_list(
            "user_card__card_id", "reviewed_at", "rating")
        current = (job.preset and job.preset.parameters) or srs.parameters or scheduling.DEFAULT_PARAMETERS
        result = fit(list(rows), clock=day_clock(srs), current=current)
        job.parameters, job.metrics, job.status = result["parameters"], result["metrics"], JobStatus.DONE
    except ValueError as exc:
        job.status, job.error = JobStatus.FAILED, str(exc)
    job.finished_at = timezone.now()
    job.save()
    return job


def training_items(rows: list[tuple[int, datetime, int]], *, clock: scheduling.DayClock):
    """[(time of last review, FSRSItem)] for every review at least one local day after the previous one."""
    histories: dict[int, list[tuple[datetime, int]]] = defaultdict(list)
    for card_id, reviewed_at, rating in rows:
        histories[card_id].append((reviewed_at, rating))
    items = []
    for history in histories.values():
        history.sort()
        reviews, previous_day = [], None
        for reviewed_at, rating in history:
            day = clock.day_of(reviewed_at)
            delta = 0 if previous_day is None else (day - previous_day).days
            reviews.append(fsrs_rs.FSRSReview(rating, delta))
            previous_day = day
            if delta > 0:
                items.append((reviewed_at, fsrs_rs.FSRSItem(list(reviews))))
    return items


def _clamped(parameters) -> list[float]:
    """fsrs-rs works in float32 and its bounds differ slightly from py-fsrs's; keep py-fsrs happy."""
    return [round(min(max(float(value), low), high), 6)
            for value, low, high in zip(parameters, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)]


def _metrics(parameters, items) -> dict[str, float]:
    evaluation = fsrs_rs.FSRS(list(parameters)).evaluate(items)
    return {"log_loss": round(float(evaluation.log_loss), 6), "rmse_bins": round(float(evaluation.rmse_bins), 6)}


def fit(rows: list[tuple[int, datetime, int]], *, clock: scheduling.DayClock, current) -> dict:
    times = sorted(reviewed_at for _, reviewed_at, _ in rows)
    if len(times) < MIN_REVIEWS:
        raise ValueError(f"Not enough reviews to optimize: {len(times)} (at least {MIN_REVIEWS}).")
    cutoff = times[int(len(times) * (1 - HOLDOUT_SHARE))]
    items = training_items(rows, clock=clock)
    train = [item for moment, item in items if moment < cutoff]
    test = [item for moment, item in items if moment >= cutoff]
    if not train or not test:
        raise ValueError("The review history spans too few days to fit and evaluate parameters.")
    fitted = _clamped(fsrs_rs.FSRS(fsrs_rs.DEFAULT_PARAMETERS).compute_parameters(train))
    return {
        "parameters": fitted,
        "metrics": {"train_items": len(train), "test_items": len(test),
                    "before": _metrics(current, test), "after": _metrics(fitted, test)},
    }


@transaction.atomic
def optimization_job_decide(*, user, job_id: uuid.UUID, apply: bool) -> OptimizationJob:
    from django.shortcuts import get_object_or_404

    job = get_object_or_404(OptimizationJob.objects.select_for_update(), id=job_id, user=user)
    if job.status != JobStatus.DONE:
        raise Conflict(f"Only a finished job can be applied or discarded; this one is {job.status}.")
    if apply:
        target = job.preset or settings_get(user=user)  # the preset fitted, or the Default (the settings)
        target.parameters = job.parameters
        target.save(update_fields=["parameters"])
    job.status = JobStatus.APPLIED if apply else JobStatus.DISCARDED
    job.save(update_fields=["status"])
    return job
