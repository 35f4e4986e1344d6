from django.apps import AppConfig


class QuizConfig(AppConfig):
    name = "apps.quiz"

    def ready(self) -> None:
        # Loaders, exporters and models are importable only once the app registry is ready.
        from apps.core.cache_keys import watch_content
        from apps.core.content import Stage, register_steps  # imports core models
        from apps.core.content_export import register_exporters  # imports the loader, so core models
        from apps.core.spa import register_page_check
        from apps.quiz import content, export  # import models
        from apps.quiz.models import Question, Topic  # models: app registry must be ready
        from apps.quiz.services import question_page_exists

        register_steps(Stage.QUESTIONS, content.load_questions, content.load_numbers, content.load_diagnosis)
        register_exporters(export.export_questions, export.export_numbers, export.export_diagnosis)
        register_page_check("/practice/questions/:id", question_page_exists)
        watch_content(Question, Topic)  # chapter pages list their questions; the lists show topics
