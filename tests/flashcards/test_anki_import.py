"""Importing a learner's own Anki package, written by the official ``anki`` library in both its formats (the
legacy one, and the default since Anki 2.1.50: zstd-compressed, newer schema): notes become their own cards with
due dates, memory, review log and their Anki deck's name; a second import of the same package changes nothing; bad
files, and a zstd bomb, fail the import job naming the file. Each package goes through the import job endpoint, the
job run in this process (tests/flashcards/conftest.py: import_file)."""

import io
import tempfile
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import zstandard

from apps.flashcards.models import Card, CardState, ReviewLog, UserCard
from tests.flashcards.conftest import import_file

anki_collection = pytest.importorskip("anki.collection")
CardAnswer = pytest.importorskip("anki.scheduler.v3").CardAnswer

def _answer(col, card_id: int, rating) -> None:
    card = col.get_card(card_id)
    card.start_timer()
    states = col._backend.get_scheduling_states(card.id)
    col.sched.answer_card(col.sched.build_answer(card=card, states=states, rating=rating))


@pytest.fixture(scope="module", params=["legacy", "latest"])
def package(request) -> dict:
    return build_package(legacy=request.param == "legacy")


def build_package(*, legacy: bool = True) -> dict:
    """Three notes: in an "Interview" deck, a basic card answered Easy (a review card) and a cloze note with two
    deletions (two cards: the first answered Again, learning; the second suspended); in the nested deck
    "Interview::Serving::GPU", a new basic card. ``legacy``: the package Anki writes with "Support older Anki
    versions" ticked; else its default format (a zstd-compressed collection.anki21b)."""
    with tempfile.TemporaryDirectory() as folder:
        col = anki_collection.Collection(str(Path(folder) / "source.anki2"))
        try:
            deck, nested = col.decks.id("Interview"), col.decks.id("Interview::Serving::GPU")
            basic, cloze = col.models.by_name("Basic"), col.models.by_name("Cloze")
            reviewed = col.new_note(basic)
            reviewed["Front"], reviewed["Back"] = "What bounds <b>decode</b>?", "Memory bandwidth"
            col.add_note(reviewed, deck)
            deletions = col.new_note(cloze)
            deletions["Text"] = "{{c1::Prefill}} is compute-bound; {{c2::decode::phase}} is memory-bound."
            col.add_note(deletions, deck)
            fresh = col.new_note(basic)
            fresh["Front"], fresh["Back"] = "TTFT?", "Time to first token"
            col.add_note(fresh, nested)
            review_card = reviewed.cards()[0]
            first, second = sorted(deletions.cards(), key=lambda c: c.ord)
            _answer(col, review_card.id, CardAnswer.EASY)
            _answer(col, first.id, CardAnswer.AGAIN)
            col.sched.suspend_cards([second.id])
            out = Path(folder) / "interview.apkg"
            col.export_anki_package(out_path=str(out), limit=None, options=anki_collection.ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=False, with_media=False, legacy=legacy))
            review = col.get_card(review_card.id)
            return {"bytes": out.read_bytes(), "legacy": legacy, "review": review.id, "review_ivl": review.ivl, "crt": col.crt,
                    "review_due": review.due, "learning": first.id, "learning_due": col.get_card(first.id).due,
                    "suspended": second.id, "fresh": fresh.cards()[0].id,
                    "revlog": col.db.scalar("select count() from revlog")}
        finally:
            col.close()


def _post(client, body: bytes) -> dict:
    """What the import of the package answered (the done job's result)."""
    status, job = import_file(client, body, "apkg")
    assert status == 202 and job["status"] == "done", job
    return job["result"]


def _refused(client, body: bytes) -> dict:
    """Why the import of the package was refused (the failed job's error: detail, fields)."""
    status, job = import_file(client, body, "apkg")
    assert status == 202 and job["status"] == "failed" and job["result"] is None, job
    return job["error"]


def _mine(user, anki_card_id: int) -> UserCard:
    return UserCard.objects.select_related("card").get(user=user, card__owner=user,
                                                       card__source_id__in=user.own_notes.filter(
                                                           anki_card_id=anki_card_id).values("pk"))


def test_cards_due_dates_and_revlog_arrive(content, learner_client, package):
    user = learner_client.user
    assert _post(learner_client, package["bytes"]) == {
        "cards": 4, "updated": 0, "reviews": package["revlog"], "skipped": 0,
        "decks": [{"name": "Interview", "cards": 3}, {"name": "Interview::Serving::GPU", "cards": 1}],
        "media": {"images": 0, "skipped": 0, "skipped_files": []}}
    assert package["revlog"] == 2

    review = _mine(user, package["review"])
    assert review.state == CardState.REVIEW and review.reps == 1
    # Anki's review due is a day number counted from the collection's creation time
    assert review.due == datetime.fromtimestamp(package["crt"], tz=UTC) + timedelta(
        days=package["review_due"])
    assert review.card.front_html == "<p>What bounds <b>decode</b>?</p>" and review.stability > 0
    log = ReviewLog.objects.get(user_card=review)
    assert (log.rating, log.state_before, log.state_after) == (4, CardState.NEW, CardState.REVIEW)

    learning = _mine(user, package["learning"])
    assert learning.state == CardState.LEARNING
    assert int(learning.due.timestamp()) == package["learning_due"]  # a learning card: due at a time
    assert learning.card.front_html == "<p>[…] is compute-bound; decode is memory-bound.</p>"
    assert "<strong>Prefill</strong>" in learning.card.back_html
    suspended = _mine(user, package["suspended"])
    assert suspended.suspended and suspended.card.front_html == "<p>Prefill is compute-bound; [phase] is memory-bound.</p>"
    fresh = _mine(user, package["fresh"])
    assert fresh.state == CardState.NEW and fresh.stability is None
    assert set(Card.objects.filter(owner=user).values_list("decks__slug", flat=True)) == {"all"}


def test_a_second_import_of_the_same_package_changes_nothing(content, learner_client, package):
    user = learner_client.user
    _post(learner_client, package["bytes"])
    before = (list(UserCard.objects.filter(user=user).order_by("id").values()),
              list(ReviewLog.objects.filter(user=user).order_by("id").values()), Card.objects.count())
    assert _post(learner_client, package["bytes"]) == {"cards": 0, "updated": 0, "reviews": 0, "skipped": 4,
                                                       "decks": [], "media": {"images": 0, "skipped": 0,
                                                                              "skipped_files": []}}
    assert (list(UserCard.objects.filter(user=user).order_by("id").values()),
            list(ReviewLog.objects.filter(user=user).order_by("id").values()), Card.objects.count()) == before


def test_the_package_is_in_the_format_anki_writes(package):
    """Anki's own export: the default format carries a zstd collection.anki21b (meta version 3) next to a stub
    collection.anki2, which the import must not take for the collection."""
    archive = zipfile.ZipFile(io.BytesIO(package["bytes"]))
    names = set(archive.namelist())
    if package["legacy"]:
        assert archive.read("meta") == b"\x08\x02" and "collection.anki21" in names
    else:
        assert archive.read("meta") == b"\x08\x03" and "collection.anki21" not in names
        assert archive.read("collection.anki21b")[:4] == b"\x28\xb5\x2f\xfd"  # zstd's magic number


def test_each_card_keeps_its_anki_deck(content, learner_client, package):
    user = learner_client.user
    _post(learner_client, package["bytes"])
    decks = {anki_card_id: _mine(user, anki_card_id).card.source_id for anki_card_id in
             (package["review"], package["learning"], package["suspended"], package["fresh"])}
    assert {anki_card_id: user.own_notes.get(pk=note_id).anki_deck for anki_card_id, note_id in decks.items()} == {
        package["review"]: "Interview", package["learning"]: "Interview", package["suspended"]: "Interview",
        package["fresh"]: "Interview::Serving::GPU"}
    fresh = _mine(user, package["fresh"]).card_id
    body = learner_client.get(f"/api/v1/flashcards/own/{fresh}/").json()
    assert body["anki_deck"] == "Interview::Serving::GPU" and body["front"] == "TTFT?"
    written = learner_client.post("/api/v1/flashcards/own/", {"kind": "basic", "front": "Q", "back": "A", "deck": "all"},
                                  format="json")
    assert written.status_code == 201 and written.json()["anki_deck"] == ""


@pytest.mark.parametrize("legacy", [True, False])
def test_a_card_in_a_filtered_deck_keeps_its_home_deck_and_due_date(content, learner_client, legacy):
    """Anki moves a card into a filtered deck by keeping its home deck in odid and its due day in odue, its due
    becoming its place in the filter (-100000 for a rescheduling filter)."""
    with tempfile.TemporaryDirectory() as folder:
        col = anki_collection.Collection(str(Path(folder) / "source.anki2"))
        try:
            note = col.new_note(col.models.by_name("Basic"))
            note["Front"], note["Back"] = "What is paged attention?", "KV cache in fixed-size blocks"
            col.add_note(note, col.decks.id("Interview::Serving::GPU"))
            card_id = note.cards()[0].id
            _answer(col, card_id, CardAnswer.EASY)
            home_due = col.get_card(card_id).due
            cram = col.sched.get_or_create_filtered_deck(0)
            cram.name = "Cram"
            cram.config.search_terms[0].search = "deck:Interview*"
            col.sched.add_or_update_filtered_deck(cram)
            moved = col.get_card(card_id)
            assert col.decks.name(moved.did) == "Cram" and moved.due == -100000 and moved.odue == home_due
            out = Path(folder) / "cram.apkg"
            col.export_anki_package(out_path=str(out), limit=None, options=anki_collection.ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=False, with_media=False, legacy=legacy))
            body, crt = out.read_bytes(), col.crt
        finally:
            col.close()
    assert _post(learner_client, body)["decks"] == [{"name": "Interview::Serving::GPU", "cards": 1}]
    mine = _mine(learner_client.user, card_id)
    assert mine.state == CardState.REVIEW
    assert mine.due == datetime.fromtimestamp(crt, tz=UTC) + timedelta(days=home_due)


def test_a_side_longer_than_own_cards_allow_fails_the_import_naming_the_file(content, learner_client):
    from apps.flashcards.own_cards import FRONT_MAX_CHARS

    with tempfile.TemporaryDirectory() as folder:
        col = anki_collection.Collection(str(Path(folder) / "source.anki2"))
        try:
            note = col.new_note(col.models.by_name("Basic"))
            note["Front"], note["Back"] = "x" * (FRONT_MAX_CHARS + 1), "Back"
            col.add_note(note, col.decks.id("Long"))
            out = Path(folder) / "long.apkg"
            col.export_anki_package(out_path=str(out), limit=None, options=anki_collection.ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=False, with_media=False, legacy=False))
            body = out.read_bytes()
        finally:
            col.close()
    error = _refused(learner_client, body)
    assert "file" in error["fields"] and "longer than own cards allow" in error["detail"]
    assert not Card.objects.filter(owner=learner_client.user).exists()


def _zstd_bomb(unpacked: int) -> bytes:
    """``unpacked`` bytes of zeros, zstd-compressed into a few kilobytes."""
    out = io.BytesIO()
    writer = zstandard.ZstdCompressor(level=3).stream_writer(out, closefd=False)
    chunk = b"SQLite format 3\x00".ljust(1 << 20, b"\x00")
    for _ in range(unpacked // len(chunk)):
        writer.write(chunk)
    writer.close()
    return out.getvalue()


def test_imported_cards_are_the_learners_alone(content, learner_client, package, make_user):
    from rest_framework.test import APIClient

    _post(learner_client, package["bytes"])
    other = APIClient()
    other.force_authenticate(make_user())
    card_id = _mine(learner_client.user, package["review"]).card_id
    assert other.get(f"/api/v1/flashcards/{card_id}/").status_code == 404
    assert other.get(f"/api/v1/flashcards/own/{card_id}/").status_code == 404
    assert _post(other, package["bytes"])["cards"] == 4  # their own copy, not ours
    assert UserCard.objects.filter(card_id=card_id).count() == 1


def test_an_imported_review_is_not_undone(content, learner_client, package):
    _post(learner_client, package["bytes"])
    card_id = _mine(learner_client.user, package["review"]).card_id
    assert learner_client.post(f"/api/v1/flashcards/{card_id}/undo/").status_code == 409


def _zip(**members: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name.replace("_", "."), data)
    return buffer.getvalue()


def test_an_empty_body_is_refused_at_upload_naming_the_file(content, learner_client):
    status, body = import_file(learner_client, b"", "apkg")
    assert status == 400 and "file" in body["fields"] and "request body" in body["detail"], body
    assert not Card.objects.filter(owner=learner_client.user).exists()


@pytest.mark.parametrize("body, message", [
    (b"not a zip", "zip archive"),
    (_zip(readme_txt=b"hello"), "no collection"),
    (_zip(collection_anki21b=b"\x28\xb5\x2f\xfd"), "not a readable Anki database"),  # a zstd header, no data
    (_zip(collection_anki21b=b"not zstd at all"), "zstd compression is broken"),
    (_zip(meta=b"\x08\x03", collection_anki2=b"SQLite format 3\x00"), "no collection"),  # version 3 needs anki21b
    (_zip(meta=b"\x08\x04", collection_anki21b=b""), "newer Anki (package version 4)"),
    (_zip(meta=b"\x08", collection_anki21b=b""), "meta file is unreadable"),
    (_zip(collection_anki21=b""), "not a readable Anki database"),
    (_zip(collection_anki21=b"SQLite format 3\x00 but broken"), "not a readable Anki database"),
])
def test_bad_packages_fail_the_import_naming_the_file(content, learner_client, body, message):
    error = _refused(learner_client, body)
    assert "file" in error["fields"] and message in error["detail"]
    assert not Card.objects.filter(owner=learner_client.user).exists()


def test_too_large_is_refused(content, learner_client, monkeypatch):
    monkeypatch.setattr("apps.flashcards.interchange.anki_import.MAX_BYTES", 1000)
    assert "too large" in _refused(learner_client, b"x" * 1001)["detail"]


def test_too_many_cards_is_refused(content, learner_client, package, monkeypatch):
    monkeypatch.setattr("apps.flashcards.interchange.anki_import.MAX_CARDS", 3)
    assert "Too many cards: 4" in _refused(learner_client, package["bytes"])["detail"]


def test_imported_cards_count_in_the_stored_deck_counts(content, learner_client, package):
    from apps.flashcards.deck_counts import stored_counts
    from tests.flashcards.test_deck_counts import check

    user = learner_client.user
    _post(learner_client, package["bytes"])
    assert stored_counts(user=user)[None]["cards"] == 4
    check(user)
    _post(learner_client, package["bytes"])  # the second import adds nothing, and the counts stay right
    assert stored_counts(user=user)[None]["cards"] == 4
    check(user)
