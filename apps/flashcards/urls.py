from django.urls import path, register_converter

from apps.flashcards import views


class CardIdConverter:
    """A card id in the database's bigint range; a longer number names no card, so the path does not match (404)
    instead of reaching the database with a value it cannot compare (500)."""

    regex = "[0-9]{1,19}"
    MAX = 2**63 - 1

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > self.MAX:
            raise ValueError("card id out of range")
        return number

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(CardIdConverter, "flashcard_id")

urlpatterns = [
    path("flashcards/decks/", views.DeckListApi.as_view(), name="flashcards-decks"),
    path("flashcards/deck-tree/", views.DeckTreeApi.as_view(), name="flashcards-deck-tree"),
    path("flashcards/decks/<slug:slug>/add/", views.DeckAddApi.as_view(), name="flashcards-deck-add"),
    path("flashcards/decks/<slug:slug>/preset/", views.DeckPresetAssignApi.as_view(), name="flashcards-deck-preset"),
    path("flashcards/presets/", views.DeckPresetListApi.as_view(), name="flashcards-presets"),
    path("flashcards/presets/<flashcard_id:preset_id>/", views.DeckPresetApi.as_view(), name="flashcards-preset"),
    path("flashcards/due/", views.DueApi.as_view(), name="flashcards-due"),
    path("flashcards/cram/", views.CramApi.as_view(), name="flashcards-cram"),
    path("flashcards/stats/", views.StatsApi.as_view(), name="flashcards-stats"),
    path("flashcards/export/", views.ExportApi.as_view(), name="flashcards-export"),
    path("flashcards/exports/", views.ExportJobListApi.as_view(), name="flashcards-export-jobs"),
    path("flashcards/exports/<uuid:job_id>/", views.ExportJobApi.as_view(), name="flashcards-export-job"),
    path("flashcards/exports/<uuid:job_id>/file/", views.ExportJobFileApi.as_view(), name="flashcards-export-file"),
    path("flashcards/imports/", views.ImportJobListApi.as_view(), name="flashcards-import-jobs"),
    path("flashcards/imports/<uuid:job_id>/", views.ImportJobApi.as_view(), name="flashcards-import-job"),
    path("flashcards/optimize/", views.OptimizeApi.as_view(), name="flashcards-optimize"),
    path("flashcards/optimize/<uuid:job_id>/", views.OptimizeJobApi.as_view(), name="flashcards-optimize-job"),
    path("flashcards/optimize/<uuid:job_id>/apply/", views.OptimizeDecideApi.as_view(), name="flashcards-optimize-apply"),
    path("flashcards/optimize/<uuid:job_id>/discard/", views.OptimizeDiscardApi.as_view(),
         name="flashcards-optimize-discard"),
    path("flashcards/cards/", views.CardBrowseApi.as_view(), name="flashcards-cards"),
    path("flashcards/cards/bulk/", views.CardBulkApi.as_view(), name="flashcards-cards-bulk"),
    path("flashcards/anki-decks/", views.AnkiDeckListApi.as_view(), name="flashcards-anki-decks"),
    path("flashcards/own/", views.OwnCardListApi.as_view(), name="flashcards-own"),
    path("flashcards/own/<flashcard_id:card_id>/", views.OwnCardApi.as_view(), name="flashcards-own-card"),
    path("flashcards/images/", views.CardImageListApi.as_view(), name="flashcards-images"),
    path("flashcards/images/<flashcard_id:image_id>/", views.CardImageApi.as_view(), name="flashcards-image"),
    path("flashcards/<flashcard_id:card_id>/", views.CardDetailApi.as_view(), name="flashcards-card"),
    path("flashcards/<flashcard_id:card_id>/check/", views.CardCheckApi.as_view(), name="flashcards-check"),
    path("flashcards/<flashcard_id:card_id>/review/", views.CardReviewApi.as_view(), name="flashcards-review"),
    path("flashcards/<flashcard_id:card_id>/undo/", views.CardUndoApi.as_view(), name="flashcards-undo"),
    path("flashcards/<flashcard_id:card_id>/suspend/", views.CardSuspendApi.as_view(), name="flashcards-suspend"),
    path("flashcards/<flashcard_id:card_id>/unsuspend/", views.CardUnsuspendApi.as_view(), name="flashcards-unsuspend"),
    path("flashcards/<flashcard_id:card_id>/bury/", views.CardBuryApi.as_view(), name="flashcards-bury"),
    path("flashcards/<flashcard_id:card_id>/unbury/", views.CardUnburyApi.as_view(), name="flashcards-unbury"),
    path("flashcards/<flashcard_id:card_id>/flag/", views.CardFlagApi.as_view(), name="flashcards-flag"),
    path("flashcards/<flashcard_id:card_id>/note/", views.CardNoteApi.as_view(), name="flashcards-note"),
    path("srs/settings/", views.SrsSettingsApi.as_view(), name="srs-settings"),
]
