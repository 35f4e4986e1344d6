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

import re

from django import forms
from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from apps.core.admin import ContentAdmin
from apps.quiz import services
from apps.quiz.keys import KeyError_, validate_key
from apps.quiz.models import DiagnosisScenario, Kind, NumberToMemorize, Question, Topic

OPTION_LINE = re.compile(r"^\[(?P<mark>[ xX])\]\s*(?P<text>.+)$")
WHY_LINE = re.compile(r"^\s+why:\s*(?P<why>.+)$")
LINE_FIELDS = {
    Kind.SINGLE_CHOICE: ["options_text"],
    Kind.MULTIPLE_CHOICE: ["options_text"],
    Kind.ORDERING: ["ordering_text"],
    Kind.CATEGORIZE: ["categorize_text"],
    Kind.MATCHING: ["matching_text"],
    Kind.NUMERIC: ["numeric_value", "numeric_unit", "numeric_tolerance", "numeric_mode"],
    Kind.OPEN: [],
}


class LineError(ValueError):
    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in (text or "").splitlines() if line.strip()]


def parse_options(text: str) -> dict:
    options: list[dict] = []
    for number, line in enumerate(_lines(text), start=1):
        why = WHY_LINE.match(line)
        if why and options:
            options[-1]["why"] = why["why"].strip()
            continue
        match = OPTION_LINE.match(line.strip())
        if not match:
            raise LineError("options_text", f"line {number}: write '[x] right option' or '[ ] wrong option'")
        options.append({"text": match["text"].strip(), "correct": match["mark"] != " "})
    return {"options": options}


def parse_categorize(text: str) -> dict:
    bins: list[str] = []
    items = []
    for number, line in enumerate(_lines(text), start=1):
        bin_name, sep, item = line.partition(":")
        if not sep or not bin_name.strip() or not item.strip():
            raise LineError("categorize_text", f"line {number}: write 'bin: item'")
        if bin_name.strip() not in bins:
            bins.append(bin_name.strip())
        items.append({"text": item.strip(), "bin": bin_name.strip()})
    return {"bins": bins, "items": items}


def parse_matching(text: str) -> dict:
    pairs = []
    for number, line in enumerate(_lines(text), start=1):
        left, sep, right = line.partition("=>")
        if not sep:
            raise LineError("matching_text", f"line {number}: write 'left => right'")
        pairs.append({"left": left.strip(), "right": right.strip()})
    return {"pairs": pairs}


def parse_number(text: str) -> int | float:
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        raise LineError("numeric_value", "enter a number, e.g. 131072 or 1.5e9")


def key_from_lines(kind: str, data: dict) -> dict:
    """The raw key (before validate_key) built from the line fields of one kind."""
    if kind in (Kind.SINGLE_CHOICE, Kind.MULTIPLE_CHOICE):
        return parse_options(data.get("options_text", ""))
    if kind == Kind.ORDERING:
        return {"items": _lines(data.get("ordering_text", ""))}
    if kind == Kind.CATEGORIZE:
        return parse_categorize(data.get("categorize_text", ""))
    if kind == Kind.MATCHING:
        return parse_matching(data.get("matching_text", ""))
    if kind == Kind.NUMERIC:
        return {"numeric": {
            "value": parse_number((data.get("numeric_value") or "").strip()),
            "unit": data.get("numeric_unit") or "",
            "tolerance": data.get("numeric_tolerance"),
            "tolerance_mode": data.get("numeric_mode") or "relative",
        }}
    return {}


def lines_from_key(kind: str, key: dict) -> dict:
    """Initial values of the line fields for a stored key."""
    key = key or {}
    if kind in (Kind.SINGLE_CHOICE, Kind.MULTIPLE_CHOICE):
        lines = []
        for option in key.get("options", []):
            lines.append(f"[{'x' if option.get('correct') else ' '}] {option.get('text', '')}")
            if option.get("why"):
                lines.append(f"    why: {option['why']}")
        return {"options_text": "\n".join(lines)}
    if kind == Kind.ORDERING:
        return {"ordering_text": "\n".join(key.get("items", []))}
    if kind == Kind.CATEGORIZE:
        return {"categorize_text": "\n".join(f"{item['bin']}: {item['text']}" for item in key.get("items", []))}
    if kind == Kind.MATCHING:
        return {"matching_text": "\n".join(f"{pair['left']} => {pair['right']}" for pair in key.get("pairs", []))}
    if kind == Kind.NUMERIC and "numeric" in key:
        spec = key["numeric"]
        return {"numeric_value": str(spec.get("value", "")), "numeric_unit": spec.get("unit", ""),
                "numeric_tolerance": spec.get("tolerance"), "numeric_mode": spec.get("tolerance_mode", "relative")}
    return {}


def field_for_key_error(kind: str, key_field: str, from_lines: bool) -> str:
    """The form field that shows a validate_key error (``numeric.unit`` -> numeric_unit)."""
    if not from_lines:
        return "key"
    if key_field.startswith("numeric."):
        name = key_field.split(".")[1]
        return "numeric_mode" if name == "tolerance_mode" else f"numeric_{name}"
    fields = LINE_FIELDS.get(kind) or ["key"]
    return fields[0]


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
            for name, value in lines_from_key(self.instance.kind, self.instance.key).items():
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
        # The raw JSON wins when it was edited (the escape hatch); else the lines when they were edited (or the
        # question is new / changed kind); else the stored key stays as it is.
        json_edited = "key" in self.changed_data and cleaned.get("key") is not None
        lines_edited = any(name in self.changed_data for name in LINE_FIELDS.get(kind, []))
        from_lines = not json_edited and (lines_edited or "kind" in self.changed_data or not self.instance.pk)
        try:
            if from_lines:
                raw = key_from_lines(kind, cleaned)
            else:
                raw = cleaned["key"] if json_edited else self.instance.key
            cleaned["key"] = validate_key(kind, raw)
        except LineError as exc:
            self.add_error(exc.field, str(exc))
        except KeyError_ as exc:
            self.add_error(field_for_key_error(kind, exc.field, from_lines), f"{exc.field}: {exc}")
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
