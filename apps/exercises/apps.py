from django.apps import AppConfig


class ExercisesConfig(AppConfig):
    name = "apps.exercises"
    verbose_name = "Design exercises"

    def ready(self) -> None:
        from apps.core.content import Stage, register_steps  # imports core models
        from apps.core.spa import register_page_check
        from apps.exercises import content  # imports models
        from apps.exercises.services import exercise_page_exists  # imports models

        register_steps(Stage.CATALOG, content.load_exercises)
        register_page_check("/practice/design/:slug", exercise_page_exists)
