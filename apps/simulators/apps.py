from django.apps import AppConfig


class SimulatorsConfig(AppConfig):
    name = "apps.simulators"

    def ready(self) -> None:
        # Register the tasks with the Celery app at start-up (models are not importable before ready()), so
        # senders can enqueue them by name, eagerly too, before any worker autodiscovery.
        from apps.simulators import tasks  # noqa: F401
