from django.apps import AppConfig


class FlashcardsConfig(AppConfig):
    name = "apps.flashcards"

    def ready(self) -> None:
        # Signal handlers and Celery tasks need the models, importable only once apps are ready; the tasks are
        # registered now so senders can enqueue them by name (eagerly too).
        from apps.core.cache_keys import watch_content
        from apps.flashcards import signals, tasks  # noqa: F401
        from apps.flashcards.models import Deck

        signals.connect()
        watch_content(Deck)  # the deck tree's cached list of visible decks is content
