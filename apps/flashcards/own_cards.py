"""Cards a learner writes: basic (front and back) or cloze (a text with {{c1::deletions}}), in Markdown rendered by
the same sanitizer as the content, size-limited, put in the decks the learner chooses and scheduled, browsed and
exported like the content's cards. Only their author sees them: every read goes through the author's own rows,
so another learner's card answers 404 like a card that does not exist.

A cloze card shows every deletion blanked on the front (``[…]``, or ``[hint]`` for ``{{c1::answer::hint}}``) and
the whole text with the answers in bold on the back, followed by the optional extra text.

Images: a card shows the learner's uploaded images by their path (apps.flashcards.images), and no other image.
"""

from __future__ import annotations

import re
from datetime import datetime

from django.db import transaction
from django.shortcuts import get_object_or_404

from apps.core.exceptions import InvalidInput
from apps.flashcards.content import content_hash, hidden_deck_slugs
from apps.flashcards.images import check_card_images, render_card_markdown
from apps.flashcards.models import Card, Deck, DeckKind, OwnNote, SourceType, UserCard

KINDS = ("basic", "cloze")
FRONT_MAX_CHARS = 2000
BACK_MAX_CHARS = 5000
CLOZE = re.compile(r"\{\{c\d+::(.+?)(?:::(.+?))?\}\}", re.DOTALL)


def sides(kind: str, front: str, back: str) -> tuple[str, str]:
    """(front, back) Markdown as shown, from what the learner wrote."""
    front, back = front.strip(), back.strip()
    if not front:
        raise InvalidInput("The front may not be empty.", field="front")
    if kind == "basic":
        if not back:
            raise InvalidInput("A basic card needs a back.", field="back")
        return front, back
    if kind != "cloze":
        raise InvalidInput(f"A card is one of {', '.join(KINDS)}.", field="kind")
    if not CLOZE.search(front):
        raise InvalidInput("A cloze card needs at least one deletion, like {{c1::answer}}.", field="front")
    question = CLOZE.sub(lambda match: f"[{match.group(2) or '…'}]", front)
    answer = CLOZE.sub(lambda match: f"**{match.group(1)}**", front)
    return question, f"{answer}\n\n{back}" if back else answer


def _decks(deck_slug: str) -> list[Deck]:
    """The chosen deck with the decks above it (its part, All cards), so the card counts in each of them."""
    deck = get_object_or_404(Deck.objects.exclude(slug__in=hidden_deck_slugs()), slug=deck_slug)
    slugs = {deck.slug, "all"}
    if deck.parent_id is not None:
        slugs.add(deck.parent.slug)
    return list(Deck.objects.filter(slug__in=slugs))


def render(card: Card, kind: str, front: str, back: str) -> None:
    card.front, card.back = sides(kind, front, back)
    card.front_html, card.back_html = render_card_markdown(card.front), render_card_markdown(card.back)
    card.content_hash = content_hash(card.front, card.back)


def check_images(user, card: Card) -> None:
    """Each side shows only the learner's own uploads (a cloze card's back repeats its front)."""
    check_card_images(user=user, html=card.front_html, field="front")
    check_card_images(user=user, html=card.back_html, field="back")


@transaction.atomic
def own_card_create(*, user, kind: str, front: str, back: str, deck_slug: str, now: datetime) -> Card:
    decks = _decks(deck_slug)
    card = Card(source_type=SourceType.OWN, owner=user)
    render(card, kind, front, back)
    check_images(user, card)
    note = OwnNote.objects.create(user=user, kind=kind, front=front.strip(), back=back.strip())
    card.source_id = note.pk
    card.save()
    card.decks.set(decks)
    UserCard.objects.create(user=user, card=card, due=now, added_at=now)
    return card


def own_card_get(*, user, card_id: int) -> tuple[Card, OwnNote]:
    """The learner's own card and what they wrote, or 404 (a content card, or another learner's, is not theirs)."""
    card = get_object_or_404(Card, pk=card_id, owner=user, source_type=SourceType.OWN)
    return card, OwnNote.objects.get(pk=card.source_id, user=user)


@transaction.atomic
def own_card_update(*, user, card_id: int, **changes) -> Card:
    card, note = own_card_get(user=user, card_id=card_id)
    deck_slug = changes.pop("deck", None)
    for name, value in changes.items():
        setattr(note, name, value.strip() if isinstance(value, str) else value)
    render(card, note.kind, note.front, note.back)
    check_images(user, card)
    note.save()
    card.save()
    if deck_slug is not None:
        card.decks.set(_decks(deck_slug))
    return card


@transaction.atomic
def own_card_delete(*, user, card_id: int) -> None:
    """The card, its place in the collection and its review history go."""
    card, note = own_card_get(user=user, card_id=card_id)
    card.delete()
    note.delete()


def own_card_body(card: Card) -> dict:
    note = OwnNote.objects.get(pk=card.source_id)
    decks = card.decks.exclude(kind=DeckKind.ALL).order_by("order", "slug").values_list("slug", "kind")
    chosen = next((slug for slug, kind in decks if kind in (DeckKind.CHAPTER, DeckKind.TOPIC)),
                  next((slug for slug, _ in decks), "all"))
    return {"card_id": card.pk, "kind": note.kind, "front": note.front, "back": note.back, "deck": chosen,
            "front_html": card.front_html, "back_html": card.back_html, "anki_deck": note.anki_deck}
