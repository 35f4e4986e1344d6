from django.apps import AppConfig


class CoursesConfig(AppConfig):
    name = "apps.courses"

    def ready(self) -> None:
        # Connected at start-up, when models can be imported: a glossary change re-renders the chapters mentioning it.
        from apps.courses.services import rerender_chapters_mentioning
        from apps.glossary.signals import term_names_changed

        term_names_changed.connect(rerender_chapters_mentioning, dispatch_uid="courses-rerender-on-term-change")
