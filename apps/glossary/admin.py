from django.contrib import admin
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from apps.core.admin import ContentAdmin
from apps.core.rendering import render_markdown
from apps.glossary.models import Term


@admin.register(Term)
class TermAdmin(ContentAdmin):
    list_display = ["term", "slug", "status", "updated_at"]
    list_filter = ["status", "chapters__part"]
    search_fields = ["term", "slug", "aliases", "definition"]
    filter_horizontal = ["related", "chapters"]
    readonly_fields = ["preview", "updated_at"]

    @admin.display(description="Preview (as saved)")
    def preview(self, term: Term) -> str:
        if not term.pk:
            return "Save to see the preview."
        # render_markdown sanitizes its output (nh3), so it is safe to mark as such.
        return format_html('<div class="term-preview" style="max-width:44rem"><p><strong>{}</strong> — {}</p>{}</div>',
                          term.term, term.definition, mark_safe(render_markdown(term.explanation or "")))
