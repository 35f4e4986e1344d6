from django.apps import AppConfig


class CoursesConfig(AppConfig):
    name = "apps.courses"

    def ready(self) -> None:
        # Imported here, not at module level: models can only be imported once the app registry is ready.
        from apps.core.cache_keys import watch_content
        from apps.courses.models import Chapter, Part  # models: app registry must be ready
        from apps.courses.services import question_model, rerender_chapters_mentioning  # imports models
        from apps.glossary.models import Term  # models: app registry must be ready
        from apps.glossary.signals import term_names_changed  # with the glossary's models loaded

        # A glossary change re-renders the chapters mentioning it.
        term_names_changed.connect(rerender_chapters_mentioning, dispatch_uid="courses-rerender-on-term-change")
        # A chapter page shows its part, neighbours, glossary terms and questions; the lists show parts, chapters,
        # terms, questions and topics: a change to any of them retires the cached bodies (apps.core.cache_keys).
        question = question_model()
        watch_content(Part, Chapter, Term, question, question._meta.get_field("topics").related_model)
