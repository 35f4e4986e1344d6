from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from apps.glossary.models import Term


@admin.register(Term)
class TermAdmin(SimpleHistoryAdmin):
    list_display = ["term", "slug", "status", "updated_at"]
    list_filter = ["status", "chapters__part"]
    search_fields = ["term", "slug", "aliases", "definition"]
    filter_horizontal = ["related", "chapters"]
