"""What every content admin shares: history (who/when/what, revert), bulk publish/unpublish, the status filter."""

from django.contrib import admin, messages
from simple_history.admin import SimpleHistoryAdmin

from apps.core.models import Status


class ContentAdmin(SimpleHistoryAdmin):
    """Base admin for ContentModel subclasses.

    The bulk actions save object by object (not ``queryset.update``) so each change gets a history record with
    the author's name and the flashcards app hears about it (an unpublished question retires its cards).
    """

    actions = ["publish", "unpublish"]
    readonly_fields = ["updated_at"]
    # Markdown fields the loader stores as ``text.strip() + "\n"``; the form strips the newline, so put it back
    # (otherwise an admin edit would change the exported file for nothing).
    newline_fields: tuple[str, ...] = ()

    def save_model(self, request, obj, form, change) -> None:
        for name in self.newline_fields:
            value = getattr(obj, name) or ""
            setattr(obj, name, value.strip() + "\n" if value.strip() else "")
        super().save_model(request, obj, form, change)

    def _set_status(self, request, queryset, status: str) -> None:
        changed = 0
        for obj in queryset:
            if obj.status != status:
                obj.status = status
                obj.save()
                changed += 1
        label = "published" if status == Status.PUBLISHED else "set to draft"
        self.message_user(request, f"{changed} item(s) {label}.", messages.SUCCESS)

    @admin.action(description="Publish selected items", permissions=["change"])
    def publish(self, request, queryset) -> None:
        self._set_status(request, queryset, Status.PUBLISHED)

    @admin.action(description="Unpublish selected items (back to draft)", permissions=["change"])
    def unpublish(self, request, queryset) -> None:
        self._set_status(request, queryset, Status.DRAFT)
