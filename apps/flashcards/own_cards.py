"""Cards a learner writes: basic (front and back) or cloze (a text with {{c1::deletions}}), in Markdown rendered by
the same sanitizer as the content, size-limited, put in the decks the learner chooses and scheduled, browsed and
exported like the content's cards. Only their author sees them: every read goes through the author's own rows,
so another learner's card answers 404 like a card that does not exist.

A cloze note makes one card per deletion number, as Anki does: card N blanks the deletions numbered N on the front
(``[…]``, or ``[hint]`` for ``{{c1::answer::hint}}``) and shows the other deletions as plain text; its back shows
the whole text with card N's answers in bold, followed by the optional extra text. An edit that adds a number adds
its card; one that removes a number retires its card (suspended, its history kept) until the number comes back.

Images: a card shows the learner's uploaded images by their path (apps.flashcards.images), and no other image.
"""

from __future__ import annotations

import re
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Max
from django.shortcuts import get_object_or_404
from django.utils import timezone

from apps.core.exceptions import InvalidInput
from apps.flashcards.content import content_hash, hidden_deck_slugs, restore_user_cards, retire_card
from apps.flashcards.images import check_card_images, render_card_markdown
from apps.flashcards.models import Card, Deck, DeckKind, OwnNote, SourceType, UserCard

KINDS = ("basic", "cloze")
FRONT_MAX_CHARS = 2000
BACK_MAX_CHARS = 5000
MAX_CLOZE_NUMBER = 100
CLOZE = re.compile(r"\{\{c(\d+)::(.+?)(?:::(.+?))?\}\}", re.DOTALL)


def ordinals(kind: str, front: str) -> list[int]:
    """The ordinals of a note's cards: 0 for a basic note; a cloze note's deletion numbers minus one."""
    if kind != "cloze":
        return [0]
    numbers = sorted({int(match.group(1)) for match in CLOZE.finditer(front)})
    if numbers and not 1 <= numbers[0] <= numbers[-1] <= MAX_CLOZE_NUMBER:
        raise InvalidInput(f"Deletions are numbered c1 to c{MAX_CLOZE_NUMBER}.", field="front")
    return [number - 1 for number in numbers]


def sides(kind: str, front: str, back: str, ordinal: int = 0) -> tuple[str, str]:
    """(front, back) Markdown as shown on the note's card ``ordinal``, from what the learner wrote."""
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
    number = ordinal + 1

    def face(asked) -> str:  # card ``ordinal``'s deletions as ``asked`` shows them, the others as plain text
        return CLOZE.sub(lambda match: asked(match) if int(match.group(1)) == number else match.group(2), front)

    question = face(lambda match: f"[{match.group(3) or '…'}]")
    answer = face(lambda match: f"**{match.group(2)}**")
    return question, f"{answer}\n\n{back}" if back else answer


def _decks(deck_slug: str) -> list[Deck]:
    """The chosen deck with the decks above it (its part, All cards), so the card counts in each of them."""
    deck = get_object_or_404(Deck.objects.exclude(slug__in=hidden_deck_slugs()), slug=deck_slug)
    slugs = {deck.slug, "all"}
    if deck.parent_id is not None:
        slugs.add(deck.parent.slug)
    return list(Deck.objects.filter(slug__in=slugs))


def render(card: Card, kind: str, front: str, back: str) -> None:
    card.front, card.back = sides(kind, front, back, card.ordinal)
    card.front_html, card.back_html = render_card_markdown(card.front), render_card_markdown(card.back)
    card.content_hash = content_hash(card.front, card.back)


def check_images(user, card: Card) -> None:
    """Each side shows only the learner's own uploads (a cloze card's back repeats its front)."""
    check_card_images(user=user, html=card.front_html, field="front")
    check_card_images(user=user, html=card.back_html, field="back")


def note_cards(note: OwnNote) -> list[Card]:
    """Every card of the note, retired ones included, by ordinal."""
    return list(Card.objects.filter(source_type=SourceType.OWN, source_id=note.pk, owner=note.user_id)
                .order_by("ordinal"))


def _sync_cards(user, note: OwnNote, decks: list[Deck], now: datetime) -> list[Card]:
    """Makes the note's cards match its deletions: each live ordinal rendered (added with its place in the learner's
    collection when new), the others retired. Returns the live cards."""
    wanted = ordinals(note.kind, note.front)
    existing = {card.ordinal: card for card in note_cards(note)}
    live = []
    for ordinal in wanted:
        card = existing.get(ordinal) or Card(source_type=SourceType.OWN, source_id=note.pk, owner=user,
                                             ordinal=ordinal)
        render(card, note.kind, note.front, note.back)
        check_images(user, card)
        was_new, was_retired = card.pk is None, card.retired
        card.retired = False
        card.save()
        card.decks.set(decks)
        if was_new:
            UserCard.objects.create(user=user, card=card, due=now, added_at=now)
        elif was_retired:
            restore_user_cards([card])
        live.append(card)
    for ordinal, card in existing.items():
        if ordinal not in wanted and not card.retired:
            retire_card(card)
    return live


@transaction.atomic
def own_card_create(*, user, kind: str, front: str, back: str, deck_slug: str, now: datetime) -> Card:
    """The note and its cards (one, or one per cloze deletion number); returns the first card."""
    decks = _decks(deck_slug)
    sides(kind, front, back)  # the note's own errors before anything is written
    note = OwnNote.objects.create(user=user, kind=kind, front=front.strip(), back=back.strip())
    return _sync_cards(user, note, decks, now)[0]


def own_card_get(*, user, card_id: int) -> tuple[Card, OwnNote]:
    """The learner's own card and what they wrote, or 404 (a content card, or another learner's, is not theirs)."""
    card = get_object_or_404(Card, pk=card_id, owner=user, source_type=SourceType.OWN)
    return card, OwnNote.objects.get(pk=card.source_id, user=user)


@transaction.atomic
def own_card_update(*, user, card_id: int, now: datetime, **changes) -> Card:
    """Edits the note of the card ``card_id``; returns that card, or the note's first live card if the edit took
    away its deletion number."""
    card, note = own_card_get(user=user, card_id=card_id)
    deck_slug = changes.pop("deck", None)
    for name, value in changes.items():
        setattr(note, name, value.strip() if isinstance(value, str) else value)
    sides(note.kind, note.front, note.back)
    decks = _decks(deck_slug) if deck_slug is not None else list(_live_card(note, card).decks.all())
    note.save()
    live = _sync_cards(user, note, decks, now)
    return next((each for each in live if each.pk == card.pk), live[0])


def _live_card(note: OwnNote, card: Card) -> Card:
    """A card of the note that still has its decks (a retired one lost them)."""
    return card if not card.retired else next((each for each in note_cards(note) if not each.retired), card)


@transaction.atomic
def own_card_delete(*, user, card_id: int) -> None:
    """The note goes with every card it made, their places in the collection and their review history."""
    _, note = own_card_get(user=user, card_id=card_id)
    Card.objects.filter(pk__in=[each.pk for each in note_cards(note)]).delete()
    note.delete()


def split_cloze_notes(**_) -> int:
    """Cloze notes stored before each deletion number had its card (one card, ordinal 0, every deletion blanked;
    or an Anki-imported card whose text keeps another number) get a card per number: the card they had keeps its
    schedule and history and takes the lowest number. Run after every migrate (no migration may run this code);
    once the notes are split it finds nothing to do. Returns how many notes it split."""
    single = (Card.objects.filter(source_type=SourceType.OWN).values("source_id")
              .annotate(cards=Count("id"), top=Max("ordinal")).filter(cards=1, top=0).values("source_id"))
    split, now = 0, timezone.now()
    for note in OwnNote.objects.filter(kind="cloze", pk__in=single).iterator():
        try:
            wanted = ordinals(note.kind, note.front)
        except InvalidInput:
            continue
        if wanted in ([], [0]):
            continue
        with transaction.atomic():
            card = Card.objects.select_for_update().get(source_type=SourceType.OWN, source_id=note.pk)
            card.ordinal = wanted[0]
            card.save(update_fields=["ordinal"])
            _sync_cards(note.user, note, list(card.decks.all()), now)
        split += 1
    return split


def own_card_body(card: Card) -> dict:
    note = OwnNote.objects.get(pk=card.source_id)
    siblings = [each.pk for each in note_cards(note) if not each.retired]
    decks = card.decks.exclude(kind=DeckKind.ALL).order_by("order", "slug").values_list("slug", "kind")
    chosen = next((slug for slug, kind in decks if kind in (DeckKind.CHAPTER, DeckKind.TOPIC)),
                  next((slug for slug, _ in decks), "all"))
    return {"card_id": card.pk, "kind": note.kind, "front": note.front, "back": note.back, "deck": chosen,
            "front_html": card.front_html, "back_html": card.back_html, "anki_deck": note.anki_deck,
            "note_cards": siblings}
