from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    name = "apps.glossary"

    def ready(self) -> None:
        # Loaders, exporters and models are importable only once the app registry is ready.
        from apps.core.cache_keys import watch_content
        from apps.core.content import Stage, register_steps  # imports core models
        from apps.core.content_export import register_exporters  # imports the loader, so core models
        from apps.core.spa import register_page_check
        from apps.glossary import content, export  # import models
        from apps.glossary.models import Term  # models: app registry must be ready
        from apps.glossary.services import term_page_exists

        register_steps(Stage.OBJECTS, content.load_terms)
        register_steps(Stage.LINKS, content.link_terms)
        register_exporters(export.export_terms)
        register_page_check("/glossary/:slug", term_page_exists)
        watch_content(Term)  # chapter pages and the lists show terms
