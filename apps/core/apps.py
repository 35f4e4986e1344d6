from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "apps.core"

    def ready(self):
        from prometheus_client import REGISTRY

        from apps.core import checks, strict_inputs  # noqa: F401  (importing checks registers them)

        strict_inputs.install()

        # The collector reads job models, importable only once apps are ready.
        from apps.core.metrics import BackgroundJobCollector

        if not getattr(REGISTRY, "_llmkit_jobs_registered", False):
            REGISTRY.register(BackgroundJobCollector())
            REGISTRY._llmkit_jobs_registered = True
