"""Cloze notes stored before each deletion had its card are split after migrate (apps.flashcards.own_cards.
split_cloze_notes, connected to post_migrate)."""

import pytest
from django.core.management import call_command
from django.utils import timezone

from apps.flashcards.models import Card, OwnNote, UserCard

pytestmark = pytest.mark.django_db


def test_an_old_cloze_card_becomes_one_card_per_deletion_keeping_its_schedule(make_user):
    user = make_user()
    note = OwnNote.objects.create(user=user, kind="cloze", front="{{c1::Prefill}} then {{c2::decode}}.", back="")
    card = Card.objects.create(source_type="own", source_id=note.pk, owner=user, front="[…] then […].",
                               back="**Prefill** then **decode**.", content_hash="x")
    UserCard.objects.create(user=user, card=card, due=timezone.now(), added_at=timezone.now(), reps=3)
    imported = OwnNote.objects.create(user=user, kind="cloze", front="A then {{c2::B}}.", back="", anki_card_id=42)
    lone = Card.objects.create(source_type="own", source_id=imported.pk, owner=user, front="A then […].",
                               back="A then **B**.", content_hash="y")
    UserCard.objects.create(user=user, card=lone, due=timezone.now(), added_at=timezone.now())
    basic = OwnNote.objects.create(user=user, kind="cloze", front="Only {{c1::one}}.", back="")
    Card.objects.create(source_type="own", source_id=basic.pk, owner=user, front="Only […].", back="Only **one**.",
                        content_hash="z")

    call_command("migrate", verbosity=0)  # post_migrate runs the split

    cards = list(Card.objects.filter(source_id=note.pk, source_type="own").order_by("ordinal"))
    assert [(c.pk == card.pk, c.ordinal, c.front) for c in cards] == [
        (True, 0, "[…] then decode."), (False, 1, "Prefill then […].")]
    assert UserCard.objects.get(card=card).reps == 3 and UserCard.objects.get(card=cards[1]).reps == 0
    assert Card.objects.get(pk=lone.pk).ordinal == 1  # the number its text keeps: its Anki ord
    assert Card.objects.filter(source_id=basic.pk, source_type="own").count() == 1
    from apps.flashcards.own_cards import split_cloze_notes

    assert split_cloze_notes() == 0  # done once
