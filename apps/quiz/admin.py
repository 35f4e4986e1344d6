"""Authoring questions, numbers and diagnosis scenarios: keys validated on save, a rendered read-only preview."""

from django import forms
from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from simple_history.admin import SimpleHistoryAdmin

from apps.quiz import services
from apps.quiz.keys import KeyError_, validate_key
from apps.quiz.models import DiagnosisScenario, NumberToMemorize, Question, Topic


class QuestionForm(forms.ModelForm):
    class Meta:
        model = Question
        fields = ["slug", "status", "kind", "level", "prompt", "answer", "key", "topics", "chapters", "glossary_terms"]

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind")
        if kind:
            try:
                cleaned["key"] = validate_key(kind, cleaned.get("key") or {})
            except KeyError_ as exc:
                self.add_error("key", f"{exc.field}: {exc}")
        return cleaned


@admin.register(Question)
class QuestionAdmin(SimpleHistoryAdmin):
    form = QuestionForm
    list_display = ["slug", "kind", "level", "status", "key_version", "updated_at"]
    list_filter = ["kind", "level", "status", "topics"]
    search_fields = ["slug", "prompt", "answer"]
    filter_horizontal = ["topics", "chapters", "glossary_terms"]
    readonly_fields = ["preview", "key_version"]

    def save_model(self, request, obj, form, change):
        if change and ("key" in form.changed_data or "kind" in form.changed_data):
            obj.key_version += 1
        super().save_model(request, obj, form, change)

    @admin.display(description="Preview")
    def preview(self, obj: Question) -> str:
        if not obj.pk:
            return "Save to see the preview."
        choices = services.public_choices(obj)
        listed = format_html_join("", "<li>{}</li>", ((value,) for values in choices.values() if isinstance(values, list) for value in values))
        # The HTML is produced by the sanitizing Markdown renderer, so it is safe to mark as such.
        return format_html(
            '<div class="quiz-preview"><h4>Prompt</h4>{}<h4>Shown to learners</h4><ul>{}</ul><h4>Model answer</h4>{}'
            "<h4>Key</h4><pre>{}</pre></div>",
            mark_safe(services.markdown_html(obj.prompt)), listed, mark_safe(services.markdown_html(obj.answer)),
            services.explanation(obj),
        )


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    search_fields = ["slug"]


@admin.register(NumberToMemorize)
class NumberToMemorizeAdmin(SimpleHistoryAdmin):
    list_display = ["label", "value", "unit", "status"]
    list_filter = ["status"]
    search_fields = ["slug", "label", "source"]
    filter_horizontal = ["chapters"]


@admin.register(DiagnosisScenario)
class DiagnosisScenarioAdmin(SimpleHistoryAdmin):
    list_display = ["slug", "answer", "status"]
    list_filter = ["answer", "status"]
    search_fields = ["slug", "symptom", "reasoning"]
    filter_horizontal = ["chapters"]
