from django.apps import AppConfig


class FlashcardsConfig(AppConfig):
    name = "apps.flashcards"

    def ready(self) -> None:
        from apps.flashcards import signals

        signals.connect()
