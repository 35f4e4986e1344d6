"""Shared pieces of content validation: Markdown bodies, slug lists, and Django → DRF error translation.

Model ``clean()`` methods raise Django ``ValidationError``s keyed by model field names (so the admin's
ModelForms show them on the right field); the authoring API runs the same ``full_clean()`` and turns the
errors into DRF errors (400 with ``fields``) through ``clean_or_400``.
"""

from __future__ import annotations

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError

from apps.core.exceptions import InvalidInput
from apps.core.rendering import render_markdown

MAX_MARKDOWN_BYTES = 200_000


def markdown_error(text) -> str | None:
    """Why ``text`` is not an acceptable Markdown body (too large, or the renderer fails), or None."""
    if not isinstance(text, str):
        return "must be Markdown text"
    size = len(text.encode("utf-8"))
    if size > MAX_MARKDOWN_BYTES:
        return f"is {size:,} bytes; at most {MAX_MARKDOWN_BYTES:,} bytes of Markdown are allowed"
    try:
        render_markdown(text)
    except Exception as exc:
        return f"does not render as Markdown: {exc}"
    return None


def string_list_error(value, *, allow_empty_items: bool = False) -> str | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return "must be a list of strings"
    if not allow_empty_items and any(not item.strip() for item in value):
        return "must not contain empty strings"
    return None


def has_nul(value) -> bool:
    """True when a JSON-like value holds a NUL character anywhere (PostgreSQL cannot store it)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(has_nul(item) for item in value)
    return False


def as_invalid_input(exc: DjangoValidationError, non_field: str = "non_field_errors") -> InvalidInput:
    if hasattr(exc, "error_dict"):
        return InvalidInput.of_fields({non_field if name == NON_FIELD_ERRORS else name: list(errors)
                                       for name, errors in exc.message_dict.items()})
    return InvalidInput.of_fields({non_field: list(exc.messages)})


def clean_or_400(instance, non_field: str = "non_field_errors", exclude: list[str] | None = None) -> None:
    """``instance.full_clean()`` (field checks, ``clean()``, uniqueness); errors become a 400 naming the fields.

    ``exclude`` skips Django's own field checks for fields whose shape ``clean()`` checks instead (JSON lists
    that may be empty although the model field is not ``blank=True``)."""
    try:
        instance.full_clean(exclude=exclude)
    except DjangoValidationError as exc:
        raise as_invalid_input(exc, non_field)


def unknown_slugs(model, slugs: list[str]) -> list[str]:
    """The slugs in ``slugs`` that name no ``model`` row (drafts count: authors may link to them)."""
    found = set(model.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    return [slug for slug in slugs if slug not in found]


def link_rows(errors: dict, field: str, model, slugs: list[str], noun: str) -> list:
    """The rows for ``slugs`` in the given order; an unknown slug is recorded in ``errors[field]`` (and [] returned),
    so a form can collect every problem before answering."""
    missing = unknown_slugs(model, slugs)
    if missing:
        names = ", ".join(f"'{slug}'" for slug in missing)
        errors[field] = [f"unknown {noun}{'s' if len(missing) > 1 else ''}: {names}"]
        return []
    by_slug = {row.slug: row for row in model.objects.filter(slug__in=slugs)}
    return [by_slug[slug] for slug in dict.fromkeys(slugs)]
