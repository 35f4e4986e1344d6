"""The Anki package imported by Anki itself (the official ``anki`` library): scheduling, review log, updates."""

import io
import sqlite3
import tempfile
import time
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from apps.flashcards.interchange import anki_export
from apps.flashcards.models import Card, ReviewLog, UserCard
from apps.flashcards.services import card_bury, card_review, card_suspend, deck_add, settings_update
from apps.flashcards.state import day_clock, settings_get
from tests.flashcards.conftest import import_file, new_review_id

anki_collection = pytest.importorskip("anki.collection")
CardAnswer = pytest.importorskip("anki.scheduler.v3").CardAnswer

EXPORT = "/api/v1/flashcards/export/?format=apkg"


@pytest.fixture
def studied(content, learner_client, card_of, monkeypatch):
    """Five cards: one in review (three reviews), one learning, one suspended, one buried, one new.

    Anki counts days in the machine's local time zone with a 4 am rollover: the learner's settings match it."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    user = learner_client.user
    settings_update(user=user, fuzzing=False, learning_steps=[10], relearning_steps=[10], time_zone="UTC",
                    day_rollover_hour=4)
    start = timezone.now() - timedelta(days=20)
    deck_add(user=user, slug="all", now=start)
    q1, q2, q3 = (card_of("question", q).id for q in content["questions"])
    term = card_of("term", content["term"]).id
    for moment in (start, start + timedelta(minutes=11), timezone.now() - timedelta(days=3)):
        card_review(user=user, card_id=q1, rating=3, review_id=new_review_id(), now=moment, duration_ms=4200)
    card_review(user=user, card_id=q2, rating=1, review_id=new_review_id(), now=timezone.now() - timedelta(minutes=3))
    card_review(user=user, card_id=q3, rating=3, review_id=new_review_id(), now=timezone.now() - timedelta(hours=1))
    card_suspend(user=user, card_id=q3, suspended=True)
    card_bury(user=user, card_id=term, now=timezone.now())
    return learner_client


def _new_collection(folder: Path):
    return anki_collection.Collection(str(folder / "collection.anki2"))


def _import(col, package: bytes, folder: Path, name: str = "deck.apkg"):
    path = folder / name
    path.write_bytes(package)
    request = anki_collection.ImportAnkiPackageRequest(
        package_path=str(path), options=anki_collection.ImportAnkiPackageOptions(with_scheduling=True))
    return col.import_anki_package(request)


def test_package_ids_and_times_are_real(studied):
    package = studied.get(EXPORT).content
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "collection.anki2"
        path.write_bytes(zipfile.ZipFile(io.BytesIO(package)).read("collection.anki2"))
        db = sqlite3.connect(path)
        notes = db.execute("select id, mod from notes").fetchall()
        cards = db.execute("select id, nid, mod from cards").fetchall()
        db.close()
    assert len(notes) == 5 and all(nid > 0 and mod > 0 for nid, mod in notes)
    assert {nid for nid, _ in notes} == {anki_export.ANKI_NOTE_ID_BASE + c.pk for c in Card.objects.all()}
    assert all(cid > 0 and mod > 0 for cid, _, mod in cards)


def test_reviews_in_the_same_millisecond_get_the_next_free_revlog_ids(content, learner_client, card_of):
    """Anki's revlog id is the review's time in ms and must be unique: reviews sharing an instant (an import's
    reviews often do) take the next free ms in time order, and a review 1 ms later moves past them."""
    user = learner_client.user
    moment = (timezone.now() - timedelta(days=2)).replace(microsecond=0)
    deck_add(user=user, slug="all", now=moment - timedelta(days=1))
    ids = [card_of("question", q).id for q in content["questions"]] + [card_of("term", content["term"]).id]
    for card_id in ids:
        card_review(user=user, card_id=card_id, rating=3, review_id=new_review_id(), now=moment)
    card_review(user=user, card_id=ids[0], rating=3, review_id=new_review_id(), now=moment + timedelta(milliseconds=1))
    package = learner_client.get(EXPORT).content
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "extracted.anki2"
        path.write_bytes(zipfile.ZipFile(io.BytesIO(package)).read("collection.anki2"))
        db = sqlite3.connect(path)
        revlog_ids = [row[0] for row in db.execute("select id from revlog order by id")]
        db.close()
        first = int(moment.timestamp() * 1000)
        # four at `first` become first..first+3; the one at first+1 is past them: first+4
        assert revlog_ids == [first, first + 1, first + 2, first + 3, first + 4]
        col = _new_collection(Path(folder))
        try:
            _import(col, package, Path(folder))
            assert col.db.scalar("select count() from revlog") == 5
        finally:
            col.close()


def test_anki_imports_the_package_with_scheduling_and_history(studied, content, card_of):
    user = studied.user
    response = studied.get(EXPORT)
    assert response.status_code == 200
    with tempfile.TemporaryDirectory() as folder:
        col = _new_collection(Path(folder))
        try:
            _import(col, response.content, Path(folder))
            problems, ok = col.fix_integrity()
            assert ok, problems
            assert col.note_count() == 5 and col.card_count() == 5
            assert col.db.scalar("select count() from revlog") == ReviewLog.objects.filter(user=user).count() == 5

            # deck tree: root::part::chapter
            names = {d.name for d in col.decks.all_names_and_ids()}
            assert "LLM-serving interview kit::01 Foundations::01 C1" in names
            assert "LLM-serving interview kit::02 Serving::01 C2" in names

            q1 = card_of("question", content["questions"][0])
            ours = UserCard.objects.get(user=user, card=q1)
            assert ours.state == 2
            anki_card = col.get_card(anki_export.ANKI_CARD_ID_BASE + q1.pk)
            assert anki_card.nid == anki_export.ANKI_NOTE_ID_BASE + q1.pk
            assert col.decks.name(anki_card.did) == "LLM-serving interview kit::01 Foundations::01 C1"
            assert "<em>prefill</em>" in anki_card.question()
            assert anki_card.type == 2 and anki_card.queue == 2 and anki_card.reps == 3
            clock = day_clock(settings_get(user=user))
            today = clock.day_of(timezone.now())
            assert anki_card.due - col.sched.today == (clock.day_of(ours.due) - today).days
            assert anki_card.ivl == (clock.day_of(ours.due) - clock.day_of(ours.last_review)).days
            assert anki_card.due > col.sched.today and anki_card.ivl > 3, (anki_card.due, anki_card.ivl)
            assert anki_card.memory_state is not None
            assert round(anki_card.memory_state.stability, 2) == round(ours.stability, 2)
            assert round(anki_card.memory_state.difficulty, 2) == round(ours.difficulty, 2)

            q2 = card_of("question", content["questions"][1])
            learning = col.get_card(anki_export.ANKI_CARD_ID_BASE + q2.pk)
            ours = UserCard.objects.get(user=user, card=q2)
            assert learning.type == 1 and learning.queue == 1 and learning.due == int(ours.due.timestamp())
            q3 = card_of("question", content["questions"][2])
            assert col.get_card(anki_export.ANKI_CARD_ID_BASE + q3.pk).queue == -1
            term = card_of("term", content["term"])
            assert col.get_card(anki_export.ANKI_CARD_ID_BASE + term.pk).queue == -2
            number = card_of("number", content["number"])
            assert col.get_card(anki_export.ANKI_CARD_ID_BASE + number.pk).type == 0

            # the learner keeps going in Anki with FSRS: the review card is answered from its carried state
            col.set_config("fsrs", True)
            anki_card.start_timer()
            states = col._backend.get_scheduling_states(anki_card.id)
            assert states.current.normal.review.scheduled_days == anki_card.ivl
            col.sched.answer_card(col.sched.build_answer(card=anki_card, states=states, rating=CardAnswer.GOOD))
            answered = col.get_card(anki_card.id)
            assert answered.reps == 4 and answered.due > col.sched.today and answered.ivl > anki_card.ivl
            assert col.db.scalar("select count() from revlog") == 6
        finally:
            col.close()


def test_reexport_after_an_edit_updates_the_note_in_place(studied, content, card_of):
    q1 = content["questions"][0]
    card = card_of("question", q1)
    Card.objects.filter(pk=card.pk).update(updated_at=timezone.now() - timedelta(days=30))
    first = studied.get(EXPORT).content
    with tempfile.TemporaryDirectory() as folder:
        col = _new_collection(Path(folder))
        try:
            _import(col, first, Path(folder), "first.apkg")
            note_id = anki_export.ANKI_NOTE_ID_BASE + card.pk
            old_mtime = col.get_note(note_id).mod
            # an author edits the question; the card follows on commit
            q1.prompt = "What is *prefill*, exactly?"
            q1.save()
            from apps.flashcards.content import sync_card

            sync_card("question", q1)
            second = studied.get(EXPORT).content
            _import(col, second, Path(folder), "second.apkg")
            assert col.note_count() == 5 and col.card_count() == 5
            note = col.get_note(note_id)
            assert "exactly" in note["Front"] and note.mod > old_mtime
            problems, ok = col.fix_integrity()
            assert ok, problems
            assert col.db.scalar("select count() from revlog") == 5
        finally:
            col.close()


def _import_here(client, package: bytes) -> dict:
    """Our own import job run to the end; its result."""
    status, job = import_file(client, package, "apkg")
    assert (status, job["status"]) == (202, "done"), job
    return job["result"]


def _export_from_anki(col, folder: Path) -> bytes:
    out = folder / "from-anki.apkg"
    col.export_anki_package(out_path=str(out), limit=None, options=anki_collection.ExportAnkiPackageOptions(
        with_scheduling=True, with_deck_configs=False, with_media=False, legacy=False))
    return out.read_bytes()


def test_our_package_round_trips_through_anki_without_duplicates_and_brings_progress_back(studied, content,
                                                                                          card_of):
    """Anki imports our export twice into one collection (same notes: no duplicate); our own export imported back
    into the same account adds nothing; the learner's progress in Anki (a review, a flag) comes back in place."""
    from apps.flashcards.models import OwnNote
    from apps.flashcards.services import card_flag

    user = studied.user
    q1, term = card_of("question", content["questions"][0]), card_of("term", content["term"])
    card_flag(user=user, card_id=term.pk, flag=3)
    ours = studied.get(EXPORT).content
    cards_before, reviews_before = UserCard.objects.filter(user=user).count(), ReviewLog.objects.filter(user=user).count()

    again = _import_here(studied, ours)
    assert again["cards"] == 0 and again["updated"] == 0 and again["reviews"] == 0
    assert UserCard.objects.filter(user=user).count() == cards_before
    assert ReviewLog.objects.filter(user=user).count() == reviews_before and not OwnNote.objects.filter(user=user)

    with tempfile.TemporaryDirectory() as folder:
        col = _new_collection(Path(folder))
        try:
            _import(col, ours, Path(folder), "first.apkg")
            _import(col, ours, Path(folder), "second.apkg")
            assert col.note_count() == 5 and col.card_count() == 5
            assert col.get_card(anki_export.ANKI_CARD_ID_BASE + term.pk).user_flag() == 3  # the flag went out
            col.set_config("fsrs", True)
            anki_card = col.get_card(anki_export.ANKI_CARD_ID_BASE + q1.pk)
            anki_card.start_timer()
            states = col._backend.get_scheduling_states(anki_card.id)
            col.sched.answer_card(col.sched.build_answer(card=anki_card, states=states, rating=CardAnswer.GOOD))
            col.set_user_flag_for_cards(5, [anki_export.ANKI_CARD_ID_BASE + q1.pk])
            answered = col.get_card(anki_card.id)
            back = _export_from_anki(col, Path(folder))
        finally:
            col.close()

    result = _import_here(studied, back)
    assert result["cards"] == 0 and result["updated"] >= 1 and result["reviews"] == 1
    assert UserCard.objects.filter(user=user).count() == cards_before and not OwnNote.objects.filter(user=user)
    assert ReviewLog.objects.filter(user=user).count() == reviews_before + 1
    progressed = UserCard.objects.get(user=user, card=q1)
    assert progressed.reps == answered.reps == 4 and progressed.flag == 5
    assert round(progressed.stability, 2) == round(answered.memory_state.stability, 2)
    assert UserCard.objects.get(user=user, card=term).flag == 3
    # and once more: the same package from Anki changes nothing now
    repeat = _import_here(studied, back)
    assert repeat["cards"] == 0 and repeat["reviews"] == 0
    assert ReviewLog.objects.filter(user=user).count() == reviews_before + 1


def test_the_documented_way_to_bring_new_progress_into_a_collection_that_holds_the_deck(studied, content, card_of):
    """Anki keeps the cards it holds when a newer package arrives (checked here: the kit's new review does not reach
    it); the way the flashcards settings page describes (Anki's progress into the kit first, then delete the deck in
    Anki and import the kit's new package) leaves Anki with the progress of both."""
    from apps.flashcards.services import card_review

    user = studied.user
    q1, q2 = card_of("question", content["questions"][0]), card_of("question", content["questions"][1])
    first = studied.get(EXPORT).content
    with tempfile.TemporaryDirectory() as folder:
        col = _new_collection(Path(folder))
        try:
            _import(col, first, Path(folder), "first.apkg")
            col.set_config("fsrs", True)
            in_anki = col.get_card(anki_export.ANKI_CARD_ID_BASE + q2.pk)  # progress made in Anki
            in_anki.start_timer()
            states = col._backend.get_scheduling_states(in_anki.id)
            col.sched.answer_card(col.sched.build_answer(card=in_anki, states=states, rating=CardAnswer.GOOD))
            card_review(user=user, card_id=q1.pk, rating=3, review_id=new_review_id(), now=timezone.now())  # here
            reps_here = UserCard.objects.get(user=user, card=q1).reps

            _import(col, studied.get(EXPORT).content, Path(folder), "newer.apkg")
            assert col.get_card(anki_export.ANKI_CARD_ID_BASE + q1.pk).reps == reps_here - 1  # Anki kept its own

            back = _export_from_anki(col, Path(folder))
            assert _import_here(studied, back)["reviews"] == 1
            col.remove_notes([col.get_card(cid).nid for cid in col.find_cards('"deck:LLM-serving interview kit"')])
            _import(col, studied.get(EXPORT).content, Path(folder), "merged.apkg")
            assert col.card_count() == 5
            assert col.get_card(anki_export.ANKI_CARD_ID_BASE + q1.pk).reps == reps_here
            assert col.get_card(anki_export.ANKI_CARD_ID_BASE + q2.pk).reps == UserCard.objects.get(
                user=user, card=q2).reps == 2
            assert col.db.scalar("select count() from revlog") == ReviewLog.objects.filter(user=user).count() == 7
            problems, ok = col.fix_integrity()
            assert ok, problems
        finally:
            col.close()


def test_an_own_cloze_note_is_one_anki_cloze_note_with_a_card_per_deletion(studied):
    """Anki renders each card of the note by its own deletion (the anki package's own cloze rendering), keeps each
    card's schedule, and a review made in Anki comes back to that card; the package imported back adds nothing."""
    from apps.flashcards.models import OwnNote

    user = studied.user
    made = studied.post("/api/v1/flashcards/own/", {
        "kind": "cloze", "deck": "all", "back": "Per GPU.",
        "front": "Llama-3.1-8B's KV cache is {{c1::128 KiB::size}} per token; its weights are {{c2::16 GB}}.",
    }, format="json").json()
    first, second = made["note_cards"]
    # written an hour ago (Anki's modification times are whole seconds: a change in the same second is not "later")
    UserCard.objects.filter(user=user, card_id__in=[first, second]).update(
        added_at=timezone.now() - timedelta(hours=1))
    card_review(user=user, card_id=first, rating=3, review_id=new_review_id(), now=timezone.now())
    package = studied.get(EXPORT).content
    cards_before = UserCard.objects.filter(user=user).count()
    with tempfile.TemporaryDirectory() as folder:
        col = _new_collection(Path(folder))
        try:
            _import(col, package, Path(folder))
            _import(col, package, Path(folder), "again.apkg")
            assert col.note_count() == 6 and col.card_count() == 7
            one = col.get_card(anki_export.ANKI_CARD_ID_BASE + first)
            two = col.get_card(anki_export.ANKI_CARD_ID_BASE + second)
            assert one.nid == two.nid and (one.ord, two.ord) == (0, 1)
            assert one.note().note_type()["type"] == 1  # Anki's cloze note type
            assert "[size]" in one.question() and "16 GB" in one.question() and "128 KiB" not in one.question()
            assert "[...]" in two.question() and "128 KiB" in two.question() and "16 GB" not in two.question()
            assert "128 KiB" in one.answer() and "Per GPU." in one.answer()
            assert one.reps == 1 and two.reps == 0 and two.type == 0
            col.set_config("fsrs", True)
            two.start_timer()
            states = col._backend.get_scheduling_states(two.id)
            col.sched.answer_card(col.sched.build_answer(card=two, states=states, rating=CardAnswer.GOOD))
            problems, ok = col.fix_integrity()
            assert ok, problems
            back = _export_from_anki(col, Path(folder))
        finally:
            col.close()
    assert _import_here(studied, package)["cards"] == 0  # our own package: nothing new
    result = _import_here(studied, back)
    assert result["cards"] == 0 and result["reviews"] == 1
    assert UserCard.objects.filter(user=user).count() == cards_before
    assert OwnNote.objects.filter(user=user).count() == 1
    assert UserCard.objects.get(user=user, card_id=second).reps == 1
    assert UserCard.objects.get(user=user, card_id=first).reps == 1
