"""Cards and decks derived from content: questions, glossary terms and numbers to memorize.

``sync_cards(ctx)`` is the last loader step; ``sync_card`` is also called by the post_save / m2m_changed signals
(apps/flashcards/signals.py) so author edits in the admin reach the cards at once. Both only write what changed,
so a second load of the same files writes nothing.

Decks: "all"; one per curriculum part (cards whose source links to a chapter of that part: questions through
Question.chapters, terms through Term.chapters, numbers through NumberToMemorize.chapters); one per question topic
(question cards only — terms and numbers have no topics and reach decks through their chapters' parts); one per
chapter, a child of its part's deck in the deck tree (``Deck.parent``), holding the cards linked to that chapter. A
part's deck is therefore exactly the union of its chapters' decks, so its counts are the rolled-up counts of its
subtree with every card counted once.
"""

from __future__ import annotations

import hashlib

from django.db import models, transaction
from django.db.models import Value
from django.db.models.functions import Concat

from apps.core.cache_keys import body_key, cached_body
from apps.core.content import LoadContext
from apps.core.models import Status
from apps.core.rendering import render_markdown
from apps.courses.models import Chapter, Part
from apps.flashcards.models import Card, Deck, DeckKind, SourceType, UserCard
from apps.glossary.models import Term
from apps.quiz.models import NumberToMemorize, Question, Topic

SOURCE_MODELS = {SourceType.QUESTION: Question, SourceType.TERM: Term, SourceType.NUMBER: NumberToMemorize}
PREFETCH = {
    SourceType.QUESTION: ["chapters__part", "topics"],
    SourceType.TERM: ["chapters__part"],
    SourceType.NUMBER: ["chapters__part"],
}


def source_type_of(obj) -> SourceType | None:
    for source_type, model in SOURCE_MODELS.items():
        if isinstance(obj, model):
            return source_type
    return None


def card_text(source_type: str, obj) -> tuple[str, str]:
    """(front, back) in Markdown for one source object."""
    if source_type == SourceType.QUESTION:
        return obj.prompt.strip(), obj.answer.strip()
    if source_type == SourceType.TERM:
        aliases = [alias for alias in obj.aliases or [] if alias]
        front = f"{obj.term} ({', '.join(aliases)})" if aliases else obj.term
        return front, obj.definition.strip()
    value = f"{obj.value} {obj.unit}".strip()
    return obj.label.strip(), f"{value}\n\n{obj.derivation.strip()}".strip()


def content_hash(front: str, back: str) -> str:
    return hashlib.sha256(f"{front}\0{back}".encode()).hexdigest()


def deck_slug_for_part(part: Part) -> str:
    return f"part-{part.slug}"


CHAPTER_DECK_PREFIX = "chapter-"


def deck_slug_for_chapter(chapter: Chapter) -> str:
    return f"{CHAPTER_DECK_PREFIX}{chapter.slug}"


def chapter_slug_of_deck(deck_slug: str) -> str:
    return deck_slug.removeprefix(CHAPTER_DECK_PREFIX)


def chapter_deck_order(chapter: Chapter) -> int:
    return 1000 + chapter.part.order * 100 + chapter.order


def hidden_deck_slugs() -> set[str]:
    """Decks of parts that are not published (drafts, or unpublished since the last content load), and of chapters
    that are not published or sit in such a part: learners neither see nor add them."""
    hidden = {deck_slug_for_part(part) for part in Part.objects.exclude(status=Status.PUBLISHED).only("slug")}
    chapters = Chapter.objects.filter(
        ~models.Q(status=Status.PUBLISHED) | ~models.Q(part__status=Status.PUBLISHED)).only("slug")
    return hidden | {deck_slug_for_chapter(chapter) for chapter in chapters}


def visible_decks() -> list[Deck]:
    """Every deck but those hidden_deck_slugs() names, in (order, slug) order. The deck tree and deck list read it on
    every request, so it is kept per content version (decks, parts and chapters are watched content: any change to
    them retires it); the instances are shared, never mutate one."""
    return cached_body(body_key("visible-decks"), lambda: list(_visible_decks_query()))


def _visible_decks_query() -> models.QuerySet[Deck]:
    """One query: the hidden slugs as subqueries, not a round trip each."""
    def slugs(queryset, prefix: str):
        return queryset.annotate(deck_slug=Concat(Value(prefix), "slug", output_field=models.CharField())).values(
            "deck_slug")

    hidden_parts = slugs(Part.objects.exclude(status=Status.PUBLISHED), "part-")
    hidden_chapters = slugs(Chapter.objects.filter(
        ~models.Q(status=Status.PUBLISHED) | ~models.Q(part__status=Status.PUBLISHED)), CHAPTER_DECK_PREFIX)
    return Deck.objects.exclude(slug__in=hidden_parts).exclude(slug__in=hidden_chapters)


def deck_slug_for_topic(topic: Topic) -> str:
    return f"topic-{topic.slug}"


def sync_decks() -> dict[str, Deck]:
    """Creates/updates the decks the curriculum implies, deletes the rest; returns them by slug."""
    # slug → (title, kind, order, parent slug); parents come before their children
    wanted: dict[str, tuple[str, str, int, str | None]] = {"all": ("All cards", DeckKind.ALL, 0, None)}
    for part in Part.objects.all():
        wanted[deck_slug_for_part(part)] = (part.title, DeckKind.PART, 100 + part.order, None)
    for chapter in Chapter.objects.select_related("part"):
        wanted[deck_slug_for_chapter(chapter)] = (chapter.title, DeckKind.CHAPTER, chapter_deck_order(chapter),
                                                  deck_slug_for_part(chapter.part))
    for index, topic in enumerate(Topic.objects.order_by("slug")):
        wanted[deck_slug_for_topic(topic)] = (topic.title, DeckKind.TOPIC, 10_000 + index, None)
    decks = {deck.slug: deck for deck in Deck.objects.all()}
    for slug, (title, kind, order, parent_slug) in wanted.items():
        deck = decks.get(slug)
        parent_id = decks[parent_slug].pk if parent_slug else None
        if deck is None:
            decks[slug] = Deck.objects.create(slug=slug, title=title, kind=kind, order=order, parent_id=parent_id)
        elif (deck.title, deck.kind, deck.order, deck.parent_id) != (title, kind, order, parent_id):
            deck.title, deck.kind, deck.order, deck.parent_id = title, kind, order, parent_id
            deck.save()
    stale = [slug for slug in decks if slug not in wanted]
    if stale:
        Deck.objects.filter(slug__in=stale).delete()
    return {slug: deck for slug, deck in decks.items() if slug in wanted}


def _deck(slug: str, title: str, kind: str, order: int, decks: dict[str, Deck] | None,
          parent: Deck | None = None) -> Deck:
    if decks is not None and slug in decks:
        return decks[slug]
    deck, _ = Deck.objects.get_or_create(slug=slug, defaults={"title": title, "kind": kind, "order": order,
                                                              "parent": parent})
    if decks is not None:
        decks[slug] = deck
    return deck


def wanted_decks(source_type: str, obj, decks: dict[str, Deck] | None = None) -> set[Deck]:
    result = {_deck("all", "All cards", DeckKind.ALL, 0, decks)}
    for chapter in obj.chapters.all():
        part = chapter.part
        part_deck = _deck(deck_slug_for_part(part), part.title, DeckKind.PART, 100 + part.order, decks)
        result.add(part_deck)
        result.add(_deck(deck_slug_for_chapter(chapter), chapter.title, DeckKind.CHAPTER, chapter_deck_order(chapter),
                         decks, parent=part_deck))
    if source_type == SourceType.QUESTION:
        for topic in obj.topics.all():
            result.add(_deck(deck_slug_for_topic(topic), topic.title, DeckKind.TOPIC, 10_000, decks))
    return result


def retire_card(card: Card) -> None:
    """The source is gone or unpublished: keep the card and its history, suspend it in every collection."""
    if card.retired and not card.decks.exists():
        return
    card.retired = True
    card.save(update_fields=["retired", "updated_at"])
    card.decks.clear()
    UserCard.objects.filter(card=card, suspended=False).update(suspended=True, suspended_by_retirement=True)


def restore_user_cards(cards) -> None:
    """The source of retired ``cards`` is back: learners who had them active get them active again (cards the
    learner suspended themselves stay suspended)."""
    UserCard.objects.filter(card__in=cards, suspended_by_retirement=True).update(
        suspended=False, suspended_by_retirement=False)


def sync_card(source_type: str, obj, *, card: Card | None = None, decks: dict[str, Deck] | None = None) -> Card:
    """Creates or updates the card of one source object; writes only what changed. A source learners cannot
    read (not published, or every chapter it belongs to a draft or in a draft part) retires its card."""
    if card is None:
        card = Card.objects.filter(source_type=source_type, source_id=obj.pk).first()
    if not SOURCE_MODELS[SourceType(source_type)].objects.published().filter(pk=obj.pk).exists():
        if card is not None:
            retire_card(card)
        return card
    front, back = card_text(source_type, obj)
    digest = content_hash(front, back)
    version = getattr(obj, "key_version", 1)
    if card is None:
        card = Card.objects.create(
            source_type=source_type, source_id=obj.pk, front=front, back=back, content_hash=digest,
            front_html=render_markdown(front), back_html=render_markdown(back), source_version=version,
        )
    elif card.content_hash != digest or card.source_version != version or card.retired:
        if version > card.source_version:
            UserCard.objects.filter(card=card).update(source_changed=True)
        if card.content_hash != digest:
            card.front, card.back, card.content_hash = front, back, digest
            card.front_html, card.back_html = render_markdown(front), render_markdown(back)
        was_retired = card.retired
        card.source_version, card.retired = version, False
        card.save()
        if was_retired:
            restore_user_cards([card])
    wanted = wanted_decks(source_type, obj, decks)
    if {deck.pk for deck in card.decks.all()} != {deck.pk for deck in wanted}:
        card.decks.set(wanted)
    return card


@transaction.atomic
def sync_all_cards(counts: dict[str, int] | None = None) -> None:
    """Bulk version of ``sync_card`` for every source: a handful of queries whatever the size of the curriculum."""
    decks = sync_decks()
    existing = {(card.source_type, card.source_id): card for card in Card.objects.filter(owner__isnull=True)}
    through = Card.decks.through
    memberships: dict[int, set[int]] = {}
    for card_id, deck_id in through.objects.values_list("card_id", "deck_id"):
        memberships.setdefault(card_id, set()).add(deck_id)
    wanted_members: dict[tuple[str, int], set[int]] = {}
    created, changed, bumped, restored, seen = [], [], [], [], set()
    for source_type, model in SOURCE_MODELS.items():
        objects = list(model.objects.published().prefetch_related(*PREFETCH[source_type]))
        for obj in objects:
            key = (source_type.value, obj.pk)
            seen.add(key)
            wanted_members[key] = {deck.pk for deck in wanted_decks(source_type, obj, decks)}
            _plan_card(source_type, obj, existing.get(key), created, changed, bumped, restored)
        if counts is not None:
            counts[f"cards_{source_type.value}"] = len(objects)
    Card.objects.bulk_create(created, batch_size=500)
    if changed:
        Card.objects.bulk_update(changed, ["front", "back", "front_html", "back_html", "content_hash",
                                           "source_version", "retired"], batch_size=500)
    if bumped:
        UserCard.objects.filter(card__in=bumped).update(source_changed=True)
    if restored:
        restore_user_cards(restored)
    cards = {(card.source_type, card.source_id): card for card in [*existing.values(), *created]}
    _sync_memberships(cards, wanted_members, memberships)
    for key, card in existing.items():
        if key not in seen and not card.retired:
            retire_card(card)
    pending_clear()


def _plan_card(source_type: str, obj, card: Card | None, created: list, changed: list, bumped: list,
               restored: list) -> None:
    front, back = card_text(source_type, obj)
    digest = content_hash(front, back)
    version = getattr(obj, "key_version", 1)
    if card is None:
        created.append(Card(source_type=source_type, source_id=obj.pk, front=front, back=back, content_hash=digest,
                            front_html=render_markdown(front), back_html=render_markdown(back),
                            source_version=version))
        return
    if card.content_hash == digest and card.source_version == version and not card.retired:
        return
    if version > card.source_version:
        bumped.append(card)
    if card.retired:
        restored.append(card)
    if card.content_hash != digest:
        card.front, card.back, card.content_hash = front, back, digest
        card.front_html, card.back_html = render_markdown(front), render_markdown(back)
    card.source_version, card.retired = version, False
    changed.append(card)


def _sync_memberships(cards: dict, wanted: dict[tuple[str, int], set[int]], current: dict[int, set[int]]) -> None:
    through = Card.decks.through
    add, remove = [], []
    for key, deck_ids in wanted.items():
        card = cards[key]
        have = current.get(card.pk, set())
        add += [through(card_id=card.pk, deck_id=deck_id) for deck_id in deck_ids - have]
        remove += [(card.pk, deck_id) for deck_id in have - deck_ids]
    through.objects.bulk_create(add, batch_size=1000)
    for card_id, deck_id in remove:
        through.objects.filter(card_id=card_id, deck_id=deck_id).delete()


# --- deferred syncing for author edits ----------------------------------------------------------------------


def _pending() -> dict[tuple[str, int], bool]:
    from django.db import connection

    if not hasattr(connection, "flashcards_pending"):
        connection.flashcards_pending = {}
    return connection.flashcards_pending


def pending_clear() -> None:
    _pending().clear()


def source_touched(source_type: str, pk: int) -> None:
    """Syncs the source's card when the transaction commits: a whole content load then costs one bulk pass."""
    _pending()[(source_type, pk)] = True
    transaction.on_commit(flush_pending)


def flush_pending() -> None:
    pending = _pending()
    keys = list(pending)
    pending.clear()
    for source_type, pk in keys:
        model = SOURCE_MODELS[SourceType(source_type)]
        obj = model.objects.filter(pk=pk).prefetch_related(*PREFETCH[SourceType(source_type)]).first()
        if obj is not None:
            sync_card(source_type, obj)
            continue
        card = Card.objects.filter(source_type=source_type, source_id=pk).first()
        if card is not None:
            retire_card(card)


def sync_cards(ctx: LoadContext) -> None:
    """Loader step: one card per published question, term and number; cards whose source left are retired."""
    sync_all_cards(ctx.counts)
