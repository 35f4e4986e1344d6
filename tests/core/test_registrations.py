"""The ground floor names no app above it: each app registers its content loaders, exporters and job tables in its
own AppConfig.ready(), by reference (a misspelt name fails at start-up instead of silently loading nothing)."""

from apps.core import content, content_export, metrics
from apps.core.content import Stage


def test_loader_steps_run_in_stage_order_each_app_registering_its_own():
    names = [step.name for step in content.STEPS]
    assert names == [
        "apps.courses.content.load_parts", "apps.courses.content.load_chapters", "apps.glossary.content.load_terms",
        "apps.courses.content.link_chapters", "apps.glossary.content.link_terms",
        "apps.quiz.content.load_questions", "apps.quiz.content.load_numbers", "apps.quiz.content.load_diagnosis",
        "apps.simulators.content.load_catalog", "apps.exercises.content.load_exercises",
        "apps.flashcards.content.sync_cards",
    ]
    stages = [step.stage for step in content.STEPS]
    assert stages == sorted(stages) and stages[-1] is Stage.CARDS


def test_registering_again_changes_nothing():
    before = list(content.STEPS), list(content_export.EXPORTERS)
    step = content.STEPS[0]
    content.register_steps(step.stage, step.run)
    content_export.register_exporters(*content_export.EXPORTERS)
    assert (list(content.STEPS), list(content_export.EXPORTERS)) == before


def test_a_late_stage_registered_early_still_runs_after_the_earlier_stages(monkeypatch):
    monkeypatch.setattr(content, "STEPS", [])

    def early(ctx):
        """a step of the first stage"""

    def late(ctx):
        """a step of the last stage"""

    content.register_steps(Stage.CARDS, late)
    content.register_steps(Stage.OBJECTS, early)
    assert [step.run for step in content.STEPS] == [early, late]


def test_exporters_and_job_tables_are_each_apps_own():
    modules = [exporter.__module__ for exporter in content_export.EXPORTERS]
    assert modules == ["apps.courses.export"] * 2 + ["apps.glossary.export"] + ["apps.quiz.export"] * 3 + [
        "apps.simulators.export"]
    assert {kind: model._meta.label for kind, model in metrics.JOB_MODELS.items()} == {
        "sweep": "simulators.SweepJob", "fsrs_optimization": "flashcards.OptimizationJob",
        "flashcard_import": "flashcards.ImportJob", "flashcard_export": "flashcards.ExportJob"}
