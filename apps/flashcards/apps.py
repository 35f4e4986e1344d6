from django.apps import AppConfig
from django.db.models.signals import post_migrate


class FlashcardsConfig(AppConfig):
    name = "apps.flashcards"

    def ready(self) -> None:
        # Signal handlers and Celery tasks need the models, importable only once apps are ready; the tasks are
        # registered now so senders can enqueue them by name (eagerly too).
        from apps.core.cache_keys import watch_content
        from apps.core.content import Stage, register_steps  # imports core models
        from apps.core.metrics import register_job_model  # reads settings at import
        from apps.flashcards import content, own_cards, signals, tasks  # noqa: F401
        from apps.flashcards.models import Deck, ExportJob, ImportJob, OptimizationJob

        register_steps(Stage.CARDS, content.sync_cards)
        register_job_model("fsrs_optimization", OptimizationJob)
        register_job_model("flashcard_import", ImportJob)
        register_job_model("flashcard_export", ExportJob)
        signals.connect()
        post_migrate.connect(own_cards.split_cloze_notes, sender=self)
        watch_content(Deck)  # the deck tree's cached list of visible decks is content
