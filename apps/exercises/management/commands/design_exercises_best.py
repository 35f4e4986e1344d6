"""Search each design exercise's grid for its best answer and write fixtures/design_exercises/_best.json.

Run once per release (and after editing an exercise's traffic, SLOs, constraints or search grid): the grader
scores an answer's cost against the answer found here. ``--check`` recomputes without writing and fails if the file
differs (what the tests do for a few exercises)."""

import json
import time

from django.contrib.auth.models import AnonymousUser
from django.core.management.base import BaseCommand, CommandError

from apps.core.content import FIXTURES_DIR
from apps.exercises import grading
from apps.exercises.content import BEST_FILE, FOLDER
from apps.exercises.models import DesignExercise


def best_file_text(found: dict) -> str:
    return json.dumps(found, indent=1, sort_keys=True) + "\n"


def _same(found: dict, stored: dict | None) -> bool:
    """The same deployment at the same cost (to a part in 10^4: the file rounds it)."""
    return (stored is not None and found["deployment"] == stored["deployment"]
            and abs(found["usd_per_million_tokens"] - stored["usd_per_million_tokens"]) <= 1e-4 * stored["usd_per_million_tokens"])


class Command(BaseCommand):
    help = "Search every design exercise's grid for the cheapest answer meeting its SLOs; write _best.json."

    def add_arguments(self, parser):
        parser.add_argument("slugs", nargs="*", help="Only these exercises (the others keep their entry)")
        parser.add_argument("--check", action="store_true", help="Recompute and compare; write nothing")

    def handle(self, *args, slugs, check, **options):
        path = FIXTURES_DIR / FOLDER / BEST_FILE
        stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        exercises = DesignExercise.objects.order_by("slug")
        if slugs:
            exercises = exercises.filter(slug__in=slugs)
            missing = set(slugs) - {e.slug for e in exercises}
            if missing:
                raise CommandError(f"no exercise {', '.join(sorted(missing))} (load the content first)")
        found = dict(stored)
        for exercise in exercises:
            start, runs = time.process_time(), []
            best = grading.search_best(exercise, user=AnonymousUser(), report=lambda d, m, runs=runs: runs.append(m))
            if best is None:
                raise CommandError(f"{exercise.slug}: no deployment of its search grid meets the SLOs")
            found[exercise.slug] = {"deployment": best["deployment"],
                                    "usd_per_million_tokens": round(best["metrics"]["usd_per_million_tokens"], 4)}
            self.stdout.write(f"{exercise.slug}: {grading.describe(best['deployment'])}, "
                              f"${best['metrics']['usd_per_million_tokens']:.3f}/M tokens "
                              f"({len(runs)} simulated, {time.process_time() - start:.1f} s CPU)")
        if check:
            changed = [slug for slug in found if not _same(found[slug], stored.get(slug))]
            if changed:
                raise CommandError(f"_best.json is stale for: {', '.join(changed)}")
            return
        path.write_text(best_file_text(found), encoding="utf-8")
