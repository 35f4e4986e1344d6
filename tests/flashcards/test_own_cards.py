"""A learner's own cards: basic and cloze, sanitized Markdown, size-limited, in the deck they choose, scheduled,
exported and imported like ours, edited and deleted, and invisible to everyone else (404)."""


import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.flashcards.content import sync_all_cards
from apps.flashcards.models import Card, OwnNote, ReviewLog, UserCard
from apps.flashcards.services import card_review, deck_add
from tests.flashcards.conftest import exported_json, import_file, new_review_id

OWN = "/api/v1/flashcards/own/"
BASIC = {"kind": "basic", "front": "Why is decode *memory-bound*?", "back": "Each token reads all weights.",
         "deck": "chapter-c1"}


@pytest.fixture
def collection(content, learner_client, quiet_settings):
    quiet_settings(learner_client.user)
    deck_add(user=learner_client.user, slug="all", now=timezone.now())
    return learner_client


@pytest.fixture
def stranger(content, make_user):
    client = APIClient()
    client.user = make_user()
    client.force_authenticate(client.user)
    deck_add(user=client.user, slug="all", now=timezone.now())
    return client


def _create(client, **changes) -> dict:
    response = client.post(OWN, {**BASIC, **changes}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _tree(client) -> dict:
    def walk(nodes):
        for node in nodes:
            yield node
            yield from walk(node["children"])
    return {node["slug"]: node for node in walk(client.get("/api/v1/flashcards/deck-tree/").json()["decks"])}


def test_a_basic_card_goes_into_the_chosen_deck_and_is_studied_like_ours(collection):
    client = collection
    tree = _tree(client)
    before, part_before = tree["chapter-c1"], tree["part-foundations"]
    card = _create(client)
    assert card["front_html"] == "<p>Why is decode <em>memory-bound</em>?</p>" and card["deck"] == "chapter-c1"
    after = _tree(client)
    assert (after["chapter-c1"]["total"], after["chapter-c1"]["in_collection"]) == (before["total"] + 1,
                                                                                    before["in_collection"] + 1)
    assert after["chapter-c1"]["counts"]["new"] == before["counts"]["new"] + 1
    assert after["part-foundations"]["in_collection"] == part_before["in_collection"] + 1  # the part holds it too
    queued = {row["card_id"]: row for row in client.get("/api/v1/flashcards/due/",
                                                        {"deck": "chapter-c1", "limit": 50}).json()["cards"]}
    assert queued[card["card_id"]]["own"] is True and queued[card["card_id"]]["links"][0]["path"] == "/learn/c1"
    answer, _ = card_review(user=client.user, card_id=card["card_id"], rating=3, review_id=new_review_id(),
                            now=timezone.now())
    assert answer["reps"] == 1
    rows = client.get("/api/v1/flashcards/cards/", {"q": "memory-bound"}).json()["results"]
    assert [(row["card_id"], row["own"], row["source_type"]) for row in rows] == [(card["card_id"], True, "own")]


def test_a_cloze_note_makes_one_card_per_deletion_number_as_anki_does(collection):
    """Card N blanks the deletions numbered N and shows the others; its back bolds card N's answers."""
    card = _create(collection, kind="cloze", back="From the KV chapter.",
                   front="The KV cache grows by {{c1::2·layers·kv_heads·head_dim·bytes}} per {{c2::token::unit}}, "
                         "{{c1::bytes}} each.")
    first, second = card["note_cards"]
    assert first == card["card_id"]
    assert card["front_html"] == "<p>The KV cache grows by […] per token, […] each.</p>"
    assert card["back_html"] == ("<p>The KV cache grows by <strong>2·layers·kv_heads·head_dim·bytes</strong> per "
                                 "token, <strong>bytes</strong> each.</p>\n<p>From the KV chapter.</p>")
    other = collection.get(f"{OWN}{second}/").json()
    assert other["front_html"] == "<p>The KV cache grows by 2·layers·kv_heads·head_dim·bytes per [unit], bytes each.</p>"
    assert other["back_html"].startswith("<p>The KV cache grows by 2·layers·kv_heads·head_dim·bytes per "
                                         "<strong>token</strong>, bytes each.</p>")
    assert other["note_cards"] == [first, second] and other["front"] == card["front"]
    # both are in the collection, new, in the chosen deck
    assert UserCard.objects.filter(user=collection.user, card_id__in=[first, second]).count() == 2
    assert _tree(collection)["chapter-c1"]["in_collection"] >= 2


def test_editing_a_cloze_note_adds_and_retires_cards_and_keeps_each_schedule(collection):
    client = collection
    card = _create(client, kind="cloze", back="", front="{{c1::Prefill}} is compute-bound; {{c2::decode}} is not.")
    first, second = card["note_cards"]
    card_review(user=client.user, card_id=second, rating=3, review_id=new_review_id(), now=timezone.now())
    # c2 taken out, c3 added: the c2 card is retired (suspended, history kept), a c3 card is new
    edited = client.patch(f"{OWN}{first}/", {"front": "{{c1::Prefill}} is compute-bound; {{c3::decode}} is not."},
                          format="json").json()
    assert edited["card_id"] == first and len(edited["note_cards"]) == 2 and second not in edited["note_cards"]
    third = edited["note_cards"][1]
    assert Card.objects.get(pk=third).ordinal == 2 and Card.objects.get(pk=second).retired
    kept = UserCard.objects.get(user=client.user, card_id=second)
    assert kept.suspended and kept.reps == 1 and ReviewLog.objects.filter(user_card=kept).count() == 1
    assert client.get(f"{OWN}{third}/").json()["front_html"] == "<p>Prefill is compute-bound; […] is not.</p>"
    # c2 back: its card returns with its schedule, in the note's deck
    again = client.patch(f"{OWN}{third}/", {"front": "{{c1::Prefill}} is {{c2::compute}}-bound; {{c3::decode}} is "
                                                     "not."}, format="json").json()
    assert again["note_cards"] == [first, second, third]
    back = UserCard.objects.get(user=client.user, card_id=second)
    assert not back.suspended and back.reps == 1 and "chapter-c1" in Card.objects.get(pk=second).decks.values_list(
        "slug", flat=True)
    # deleting any card of the note deletes the note with all its cards and their history
    assert client.delete(f"{OWN}{second}/").status_code == 204
    assert not Card.objects.filter(pk__in=[first, second, third]).exists() and not OwnNote.objects.exists()
    assert not ReviewLog.objects.filter(user=client.user).exists()


def test_markdown_goes_through_the_content_sanitizer(collection):
    card = _create(collection, front="<script>alert(1)</script>**bold** <a href=javascript:alert(1) onclick=x>l</a>")
    assert "<script" not in card["front_html"] and "javascript:" not in card["front_html"]
    assert "onclick" not in card["front_html"] and "<strong>bold</strong>" in card["front_html"]
    # an image that is not one of the learner's uploads is refused (tests/flashcards/test_card_images.py)
    response = collection.post(OWN, {**BASIC, "front": "<img src=x onerror=alert(1)>"}, format="json")
    assert response.status_code == 400 and list(response.json()["fields"]) == ["front"]


@pytest.mark.parametrize("changes, field", [
    ({"kind": "reverse"}, "kind"), ({"front": "x" * 2001}, "front"), ({"back": "x" * 5001}, "back"),
    ({"front": "   "}, "front"), ({"back": ""}, "back"), ({"kind": "cloze", "front": "no deletion here"}, "front"),
    ({"deck": "not a slug!"}, "deck"), ({"deck": None}, "deck"),
    ({"kind": "cloze", "front": "{{c0::zero}} is not a number Anki gives"}, "front"),
    ({"kind": "cloze", "front": "{{c101::too far}}"}, "front"),
])
def test_bad_own_card_names_the_field(collection, changes, field):
    response = collection.post(OWN, {**BASIC, **changes}, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]
    assert not Card.objects.filter(owner=collection.user).exists() and not OwnNote.objects.exists()


def test_unknown_deck_is_404(collection):
    assert collection.post(OWN, {**BASIC, "deck": "chapter-nope"}, format="json").status_code == 404


def test_invisible_to_everyone_else(collection, stranger):
    card = _create(collection)
    url = f"{OWN}{card['card_id']}/"
    assert stranger.get(url).status_code == 404
    assert stranger.patch(url, {"front": "mine now"}, format="json").status_code == 404
    assert stranger.delete(url).status_code == 404
    assert stranger.get(f"/api/v1/flashcards/{card['card_id']}/").status_code == 404
    assert stranger.post(f"/api/v1/flashcards/{card['card_id']}/review/",
                         {"rating": 3, "review_id": new_review_id()}, format="json").status_code == 404
    deck_add(user=stranger.user, slug="chapter-c1", now=timezone.now())  # adding the deck does not bring it
    assert not UserCard.objects.filter(user=stranger.user, card_id=card["card_id"]).exists()
    assert _tree(stranger)["chapter-c1"]["total"] == _tree(collection)["chapter-c1"]["total"] - 1
    assert stranger.get("/api/v1/flashcards/cards/", {"q": "memory-bound"}).json()["count"] == 0


def test_edit_keeps_the_schedule_and_delete_removes_the_card_and_its_history(collection):
    client = collection
    card = _create(client)
    card_review(user=client.user, card_id=card["card_id"], rating=3, review_id=new_review_id(), now=timezone.now())
    edited = client.patch(f"{OWN}{card['card_id']}/", {"back": "It reads every weight per token.", "deck": "topic-batching"},
                          format="json").json()
    assert edited["back_html"] == "<p>It reads every weight per token.</p>" and edited["deck"] == "topic-batching"
    assert UserCard.objects.get(user=client.user, card_id=card["card_id"]).reps == 1
    bad = client.patch(f"{OWN}{card['card_id']}/", {"kind": "cloze"}, format="json")  # its front has no deletion
    assert bad.status_code == 400 and "front" in bad.json()["fields"]
    assert client.delete(f"{OWN}{card['card_id']}/").status_code == 204
    assert not Card.objects.filter(pk=card["card_id"]).exists() and not ReviewLog.objects.exists()


def test_a_content_reload_leaves_own_cards_alone(collection):
    card = _create(collection)
    sync_all_cards()
    stored = Card.objects.get(pk=card["card_id"])
    assert not stored.retired and set(stored.decks.values_list("slug", flat=True)) == {"all", "part-foundations",
                                                                                         "chapter-c1"}


def test_exported_and_imported_like_ours_but_not_into_another_collection(collection, stranger):
    client = collection
    card = _create(client)
    cloze = _create(client, kind="cloze", back="", front="{{c1::Prefill}} is compute-bound; {{c2::decode}} is not.")
    card_review(user=client.user, card_id=card["card_id"], rating=3, review_id=new_review_id(), now=timezone.now())
    card_review(user=client.user, card_id=cloze["note_cards"][1], rating=3, review_id=new_review_id(),
                now=timezone.now())
    exported = exported_json(client)
    own_rows = [(row["source_id"], row["ordinal"], row["reps"]) for row in exported["cards"]
                if row["source_type"] == "own"]
    note = Card.objects.get(pk=cloze["card_id"]).source_id
    assert sorted(own_rows)[-2:] == [(note, 0, 0), (note, 1, 1)]  # the cloze note's two cards, each its schedule
    assert client.get("/api/v1/flashcards/export/", {"format": "apkg"}).status_code == 200
    assert b"memory-bound" in client.get("/api/v1/flashcards/export/", {"format": "csv"}).content
    status, job = import_file(client, exported, "json")
    assert (status, job["status"]) == (202, "done"), job
    assert UserCard.objects.get(user=client.user, card_id=card["card_id"]).reps == 1
    assert UserCard.objects.get(user=client.user, card_id=cloze["note_cards"][1]).reps == 1
    assert UserCard.objects.get(user=client.user, card_id=cloze["note_cards"][0]).reps == 0
    own_only = {**exported, "cards": [row for row in exported["cards"] if row["source_type"] == "own"]}
    for row in own_only["cards"]:
        for review in row["reviews"]:
            review["review_id"] = new_review_id()
    status, job = import_file(stranger, own_only, "json")
    assert (status, job["status"]) == (202, "failed") and "cards.0.source_id" in job["error"]["fields"]
    assert not UserCard.objects.filter(user=stranger.user, card_id=card["card_id"]).exists()
