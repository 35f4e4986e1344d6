from django.apps import AppConfig


class CoursesConfig(AppConfig):
    name = "apps.courses"

    def ready(self) -> None:
        # Imported here, not at module level: models can only be imported once the app registry is ready.
        from apps.core.cache_keys import watch_content
        from apps.core.content import Stage, register_steps  # imports core models
        from apps.core.content_export import register_exporters  # imports the loader, so core models
        from apps.core.spa import register_page_check
        from apps.courses import content, export  # import models
        from apps.courses.models import Chapter, Part  # models: app registry must be ready
        from apps.courses.services import chapter_page_exists, rerender_chapters_mentioning  # imports models
        from apps.glossary.signals import term_names_changed  # with the glossary's models loaded

        register_steps(Stage.OBJECTS, content.load_parts, content.load_chapters)
        register_steps(Stage.LINKS, content.link_chapters)
        register_exporters(export.export_parts, export.export_chapters)
        register_page_check("/learn/:slug", chapter_page_exists)
        # A glossary change re-renders the chapters mentioning it.
        term_names_changed.connect(rerender_chapters_mentioning, dispatch_uid="courses-rerender-on-term-change")
        # Cached pages and lists show parts and chapters: a change retires the cached bodies (apps.core.cache_keys);
        # the apps above watch their own content the same way.
        watch_content(Part, Chapter)
