from django.apps import AppConfig


class SimulatorsConfig(AppConfig):
    name = "apps.simulators"

    def ready(self) -> None:
        # Register the tasks with the Celery app at start-up (models are not importable before ready()), so
        # senders can enqueue them by name, eagerly too, before any worker autodiscovery; and the catalog's
        # loader, exporter and job model with the ground floor.
        from apps.core.content import Stage, register_steps  # imports core models
        from apps.core.content_export import register_exporters  # imports the loader, so core models
        from apps.core.metrics import register_job_model  # reads settings at import
        from apps.simulators import content, export, tasks  # noqa: F401
        from apps.simulators.models import SweepJob

        register_steps(Stage.CATALOG, content.load_catalog)
        register_exporters(export.export_catalog)
        register_job_model("sweep", SweepJob)
