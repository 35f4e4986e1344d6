"""The CSV export is one plain CSV that Anki's own importer reads with its defaults: one note per card."""

import csv
import io
import tempfile
from pathlib import Path

import pytest

from apps.flashcards.models import UserCard
from apps.flashcards.services import card_review, deck_add
from tests.flashcards.conftest import T0, new_review_id

anki_collection = pytest.importorskip("anki.collection")

EXPORT = "/api/v1/flashcards/export/?format=csv"


@pytest.fixture
def collection_client(content, learner_client, quiet_settings, card_of):
    user = learner_client.user
    quiet_settings(user)
    deck_add(user=user, slug="all", now=T0)
    # an answer with a comma, a quote, a newline and a leading "#" must survive the round trip
    q2 = content["questions"][1]
    q2.answer = '# Token loop\n\nOne token, then "the next", per step.'
    q2.save()
    from apps.flashcards.content import sync_card

    sync_card("question", q2)
    card_review(user=user, card_id=card_of("question", content["questions"][0]).id, rating=3,
                review_id=new_review_id(), now=T0)
    return learner_client


def _import_csv(col, text: str, folder: Path):
    path = folder / "flashcards.csv"
    path.write_text(text, encoding="utf-8")
    metadata = col.get_csv_metadata(path=str(path), delimiter=None)
    return col.import_csv(anki_collection.ImportCsvRequest(path=str(path), metadata=metadata))


def test_csv_is_one_plain_file_with_anki_headers(collection_client):
    response = collection_client.get(EXPORT)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="flashcards.csv"' in response["Content-Disposition"]
    text = response.content.decode()
    lines = text.splitlines()
    assert lines[:3] == ["#separator:comma", "#html:true", "#notetype:Basic"]
    assert lines[3].startswith("#columns:Front,Back,Deck,Tags,GUID")
    assert {"#deck column:3", "#tags column:4", "#guid column:5"} <= set(lines[4:7])
    user_cards = UserCard.objects.filter(user=collection_client.user).count()
    rows = [row for row in csv.reader(io.StringIO(text)) if not row[0].startswith("#")]
    assert user_cards == 5 and len(rows) == user_cards
    assert all(len(row) == len(rows[0]) for row in rows)


def test_anki_imports_the_csv_without_choices(collection_client):
    text = collection_client.get(EXPORT).content.decode()
    with tempfile.TemporaryDirectory() as folder:
        col = anki_collection.Collection(str(Path(folder) / "collection.anki2"))
        try:
            result = _import_csv(col, text, Path(folder))
            assert len(result.log.new) == 5 and not result.log.conflicting
            assert col.note_count() == 5 and col.card_count() == 5
            names = {d.name for d in col.decks.all_names_and_ids()}
            assert "LLM-serving interview kit::01 Foundations::01 C1" in names
            assert "LLM-serving interview kit::02 Serving::01 C2" in names
            fronts = {col.get_note(nid)["Front"] for nid in col.find_notes("")}
            assert "<p>What is <em>prefill</em>?</p>" in fronts
            backs = [col.get_note(nid)["Back"] for nid in col.find_notes("")]
            assert any(back.startswith('Token loop') and '"the next"' in back for back in backs), backs
            assert set(col.tags.all()) >= {"question", "term", "number"}
            # importing the same file again updates by GUID instead of adding notes
            _import_csv(col, text, Path(folder))
            assert col.note_count() == 5
            problems, ok = col.fix_integrity()
            assert ok, problems
        finally:
            col.close()


def test_each_card_of_a_cloze_note_is_a_note_of_its_own_in_the_csv(collection_client):
    """A CSV row is a Basic note: the two cards of a cloze note keep their own sides and GUIDs, so Anki adds both."""
    made = collection_client.post("/api/v1/flashcards/own/", {
        "kind": "cloze", "deck": "all", "back": "", "front": "{{c1::Prefill}} fills the KV cache; {{c2::decode}} reads it."},
        format="json").json()
    text = collection_client.get(EXPORT).content.decode()
    with tempfile.TemporaryDirectory() as folder:
        col = anki_collection.Collection(str(Path(folder) / "collection.anki2"))
        try:
            _import_csv(col, text, Path(folder))
            assert col.note_count() == 7
            fronts = {col.get_note(nid)["Front"] for nid in col.find_notes("")}
            assert {"<p>[…] fills the KV cache; decode reads it.</p>",
                    "<p>Prefill fills the KV cache; […] reads it.</p>"} <= fronts
            _import_csv(col, text, Path(folder))  # again: each row updates its own note by GUID
            guids = [col.get_note(nid).guid for nid in col.find_notes("")]
            assert col.note_count() == 7 and len(set(guids)) == 7
            fronts = {col.get_note(nid)["Front"] for nid in col.find_notes("")}
            assert {"<p>[…] fills the KV cache; decode reads it.</p>",
                    "<p>Prefill fills the KV cache; […] reads it.</p>"} <= fronts
        finally:
            col.close()
    assert len(made["note_cards"]) == 2
