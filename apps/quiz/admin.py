"""Authoring questions, numbers and diagnosis scenarios: the answer key edited as plain lines, validated on save,
a rendered preview beside the editor, bulk publish/unpublish, history with revert.

The question form edits the answer key (``Question.key``) as lines per kind:
- choices: ``[x] right option`` / ``[ ] wrong option``; an indented ``why: ...`` line explains the option above;
- ordering: the items in the correct order;
- categorize: ``bin: item`` (bins in order of first appearance);
- matching: ``left => right``;
- numeric: value, unit, tolerance and mode fields.
The raw JSON ``key`` stays available; the line fields win when they were edited.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from apps.core.admin import ContentAdmin
from apps.quiz import services
from apps.quiz.kinds import REGISTRY, KeyError_, LineError, kind_of, validate_key
from apps.quiz.models import DiagnosisScenario, NumberToMemorize, Question, Topic


def _text(label: str, help_text: str) -> forms.CharField:
    return forms.CharField(label=label, required=False, help_text=help_text,
                           widget=forms.Textarea(attrs={"rows": 6, "cols": 80, "class": "vLargeTextField"}))


class QuestionForm(forms.ModelForm):
    options_text = _text("Options", "Choice questions: one option a line, '[x] right' or '[ ] wrong'; "
                                    "an indented 'why: ...' line explains the option above it.")
    ordering_text = _text("Items in order", "Ordering questions: the items one a line, in the correct order.")
    categorize_text = _text("Items by bin", "Categorize questions: 'bin: item' one a line.")
    matching_text = _text("Pairs", "Matching questions: 'left => right' one a line.")
    numeric_value = forms.CharField(label="Value", required=False, help_text="Numeric questions: the right answer")
    numeric_unit = forms.CharField(label="Unit", required=False, help_text="e.g. GiB, ms, tokens/s; empty = none")
    numeric_tolerance = forms.FloatField(label="Tolerance", required=False, help_text="0.02 = ±2 % when relative")
    numeric_mode = forms.ChoiceField(label="Tolerance mode", required=False, initial="relative",
                                     choices=[("relative", "relative"), ("absolute", "absolute")])

    class Meta:
        model = Question
        fields = ["slug", "status", "kind", "level", "prompt", "answer", "key", "topics", "chapters",
                  "glossary_terms", "source_file"]
        help_texts = {"key": "Advanced: the answer key as JSON. Filled from the fields above when they are edited."}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            kind = REGISTRY.get(self.instance.kind)
            for name, value in (kind.lines_from_key(self.instance.key or {}) if kind else {}).items():
                self.initial.setdefault(name, value)

    def clean(self):
        cleaned = super().clean()
        for name in ("prompt", "answer"):
            # Browsers submit a textarea's line breaks as CRLF; keep them as typed (LF), as in fixtures/.
            if isinstance(cleaned.get(name), str):
                cleaned[name] = cleaned[name].replace("\r\n", "\n").replace("\r", "\n")
        kind = cleaned.get("kind")
        if not kind:
            return cleaned
        question_kind = kind_of(kind)
        # The raw JSON wins when it was edited (the escape hatch); else the lines when they were edited (or the
        # question is new / changed kind); else the stored key stays as it is.
        json_edited = "key" in self.changed_data and cleaned.get("key") is not None
        lines_edited = any(name in self.changed_data for name in question_kind.line_fields)
        from_lines = not json_edited and (lines_edited or "kind" in self.changed_data or not self.instance.pk)
        try:
            if from_lines:
                raw = question_kind.key_from_lines(cleaned)
            else:
                raw = cleaned["key"] if json_edited else self.instance.key
            cleaned["key"] = validate_key(kind, raw)
        except LineError as exc:
            self.add_error(exc.field, str(exc))
        except KeyError_ as exc:
            self.add_error(question_kind.line_field_for(exc.field) if from_lines else "key", f"{exc.field}: {exc}")
        return cleaned


@admin.register(Question)
class QuestionAdmin(ContentAdmin):
    form = QuestionForm
    list_display = ["slug", "kind", "level", "status", "key_version", "updated_at"]
    list_filter = ["status", "kind", "level", "topics", "chapters__part"]
    search_fields = ["slug", "prompt", "answer"]
    filter_horizontal = ["topics", "chapters", "glossary_terms"]
    readonly_fields = ["preview", "key_version", "updated_at"]
    newline_fields = ("prompt", "answer")
    fieldsets = [
        (None, {"fields": ["slug", "status", "kind", "level", "prompt", "answer"]}),
        ("Answer key (fill the fields of the question's kind)", {"fields": [
            "options_text", "ordering_text", "categorize_text", "matching_text",
            ("numeric_value", "numeric_unit", "numeric_tolerance", "numeric_mode"), "key",
        ]}),
        ("Links", {"fields": ["topics", "chapters", "glossary_terms"]}),
        ("Preview (as saved)", {"fields": ["preview"]}),
        ("Bookkeeping", {"classes": ["collapse"], "fields": ["key_version", "source_file", "updated_at"]}),
    ]

    def view_on_site(self, obj: Question) -> str:
        return f"/practice/checks/{obj.pk}"

    def save_model(self, request, obj: Question, form, change) -> None:
        if change:
            before = Question.objects.filter(pk=obj.pk).values_list("kind", "key", "key_version").first()
            # A different answer key invalidates what learners were graded and drilled on: flag their cards.
            if before and (before[0], before[1]) != (obj.kind, obj.key) and obj.key_version == before[2]:
                obj.key_version += 1
        super().save_model(request, obj, form, change)

    @admin.display(description="Preview")
    def preview(self, obj: Question) -> str:
        if not obj.pk:
            return "Save (as a draft) to see the preview."
        # The saved version: after a rejected post the form's instance holds the unvalidated input.
        obj = Question.objects.get(pk=obj.pk)
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
class NumberToMemorizeAdmin(ContentAdmin):
    list_display = ["label", "value", "unit", "status", "updated_at"]
    list_filter = ["status", "chapters__part"]
    search_fields = ["slug", "label", "source", "derivation"]
    filter_horizontal = ["chapters"]


@admin.register(DiagnosisScenario)
class DiagnosisScenarioAdmin(ContentAdmin):
    list_display = ["slug", "game", "answer", "status", "updated_at"]
    list_filter = ["status", "game", "answer", "chapters__part"]
    search_fields = ["slug", "symptom", "details", "reasoning"]
    filter_horizontal = ["chapters"]
    newline_fields = ("reasoning",)
