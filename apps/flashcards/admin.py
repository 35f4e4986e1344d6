from django.contrib import admin

from apps.flashcards.models import Card, Deck, OptimizationJob, ReviewLog, SrsSettings, UserCard


@admin.register(Card)
class CardAdmin(admin.ModelAdmin):
    list_display = ["id", "source_type", "source_id", "front", "retired", "updated_at"]
    list_filter = ["source_type", "retired", "decks"]
    search_fields = ["front", "back"]
    readonly_fields = ["source_type", "source_id", "front", "back", "front_html", "back_html", "content_hash",
                       "source_version", "updated_at"]


@admin.register(Deck)
class DeckAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "kind", "order"]


@admin.register(UserCard)
class UserCardAdmin(admin.ModelAdmin):
    list_display = ["user", "card", "state", "due", "reps", "lapses", "suspended", "leech"]
    list_filter = ["state", "suspended", "leech"]
    raw_id_fields = ["user", "card"]


@admin.register(ReviewLog)
class ReviewLogAdmin(admin.ModelAdmin):
    list_display = ["review_id", "user", "rating", "reviewed_at", "state_before", "state_after"]
    raw_id_fields = ["user", "user_card"]


admin.site.register(SrsSettings)
admin.site.register(OptimizationJob)
