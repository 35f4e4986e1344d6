from django.contrib import admin
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from apps.core.admin import ContentAdmin
from apps.courses.models import Chapter, ChapterProgress, Part
from apps.courses.services import glossary_entries, render_chapter_body


@admin.register(Part)
class PartAdmin(ContentAdmin):
    list_display = ["order", "title", "slug", "status"]
    list_display_links = ["title"]
    list_filter = ["status"]
    search_fields = ["title", "slug", "summary"]
    readonly_fields = ["updated_at"]


@admin.register(Chapter)
class ChapterAdmin(ContentAdmin):
    list_display = ["title", "part", "order", "level", "status", "updated_at"]
    list_filter = ["status", "part", "level"]
    search_fields = ["title", "slug", "summary", "body"]
    filter_horizontal = ["prerequisites", "glossary_terms"]
    readonly_fields = ["rendered_preview", "updated_at"]
    list_select_related = ["part"]
    newline_fields = ("body",)

    @admin.display(description="Rendered body (preview)")
    def rendered_preview(self, chapter: Chapter) -> str:
        if not chapter.body_html:
            return "(rendered when saved)"
        # body_html is sanitized by apps.core.rendering (nh3) when it is produced.
        return format_html('<div class="chapter-preview" style="max-width:44rem">{}</div>', mark_safe(chapter.body_html))

    def save_model(self, request, obj: Chapter, form, change) -> None:
        obj.body_html = render_chapter_body(obj.body, glossary_entries())
        super().save_model(request, obj, form, change)


@admin.register(ChapterProgress)
class ChapterProgressAdmin(admin.ModelAdmin):
    list_display = ["user", "chapter", "status", "updated_at"]
    list_filter = ["status"]
    search_fields = ["user__username", "chapter__slug"]
    raw_id_fields = ["user", "chapter"]
