"""Keeps cards in step with author edits: saves, relinks and deletions of a source sync its card on commit."""

from django.db.models.signals import m2m_changed, post_delete, post_save

from apps.courses.models import Chapter, Part
from apps.flashcards.content import SOURCE_MODELS, source_touched, source_type_of
from apps.glossary.models import Term
from apps.quiz.models import NumberToMemorize, Question


def _on_source_changed(sender, instance, raw=False, **kwargs) -> None:
    if not raw:  # loaddata: the fixture holds whatever it holds
        source_touched(source_type_of(instance), instance.pk)


def _on_links_changed(sender, instance, action, reverse, model, pk_set, **kwargs) -> None:
    if action not in {"post_add", "post_remove", "post_clear"}:
        return
    if not reverse:
        source_touched(source_type_of(instance), instance.pk)
    elif model in SOURCE_MODELS.values():  # changed from the chapter/topic side
        for pk in pk_set or model.objects.none().values_list("pk", flat=True):
            source_touched(source_type_of(model()), pk)


def _on_chapter_or_part_saved(sender, instance, raw=False, **kwargs) -> None:
    """A chapter or part that is published or set to draft shows or hides the cards of what it holds."""
    if raw:
        return
    chapters = {"chapters": instance} if isinstance(instance, Chapter) else {"chapters__part": instance}
    for source_type, model in SOURCE_MODELS.items():
        for pk in model.objects.filter(**chapters).values_list("pk", flat=True).distinct():
            source_touched(source_type, pk)


def connect() -> None:
    for model in (Chapter, Part):
        post_save.connect(_on_chapter_or_part_saved, sender=model, dispatch_uid=f"flashcards-save-{model.__name__}")
    for model in SOURCE_MODELS.values():
        post_save.connect(_on_source_changed, sender=model, dispatch_uid=f"flashcards-save-{model.__name__}")
        post_delete.connect(_on_source_changed, sender=model, dispatch_uid=f"flashcards-delete-{model.__name__}")
    for through in (Question.chapters.through, Question.topics.through, Term.chapters.through,
                    NumberToMemorize.chapters.through):
        m2m_changed.connect(_on_links_changed, sender=through, dispatch_uid=f"flashcards-m2m-{through.__name__}")
