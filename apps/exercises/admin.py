from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from apps.exercises.models import DesignAttempt, DesignExercise


@admin.register(DesignExercise)
class DesignExerciseAdmin(SimpleHistoryAdmin):
    """Exercises are edited in their files (fixtures/design_exercises/): the best answer is searched for the text
    there, so the admin shows them read-only."""

    list_display = ("slug", "title", "category", "level", "model_slug", "status")
    list_filter = ("category", "level", "status")
    search_fields = ("slug", "title")

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(DesignAttempt)
class DesignAttemptAdmin(admin.ModelAdmin):
    list_display = ("user", "exercise", "score", "created_at")
    list_filter = ("exercise",)
    raw_id_fields = ("user", "exercise")
