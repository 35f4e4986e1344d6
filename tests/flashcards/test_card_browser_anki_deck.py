"""Browsing by Anki deck: the learner's cards imported from an Anki deck, or from its subdecks (as Anki's deck:"A::B"
finds "A::B::C"), or from the decks Anki's wildcard finds ("Inter*"), equal a direct query; the deck names offered
are the learner's own only; a malformed name is a 400 naming the field."""

import glob
from datetime import timedelta
from fnmatch import fnmatchcase

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.flashcards.models import OwnNote, UserCard
from apps.flashcards.own_cards import own_card_create
from apps.flashcards.services import deck_add

CARDS = "/api/v1/flashcards/cards/"
ANKI_DECKS = "/api/v1/flashcards/anki-decks/"

# The learner's own cards by the Anki deck each was imported from ("": written here, not imported).
MINE = ["Interview", "Interview", "Interview::Serving", "Interview::Serving::GPU", "Interviewing", "Other",
        "100%_done", "1000x", "Ünïcode::Déck", ""]
THEIRS = ["Interview", "Secret::Deck"]


def _own_cards(user, decks: list[str]) -> dict[int, str]:
    start = timezone.now() - timedelta(days=1)
    made = {}
    for index, deck in enumerate(decks):
        card = own_card_create(user=user, kind="basic", front=f"Front {index} {deck}", back="Back", deck_slug="all",
                               now=start + timedelta(minutes=index))
        OwnNote.objects.filter(pk=card.source_id).update(anki_deck=deck)
        made[card.pk] = deck
    return made


@pytest.fixture
def collections(content, learner_client, stranger, quiet_settings):
    quiet_settings(learner_client.user)
    deck_add(user=learner_client.user, slug="all", now=timezone.now())  # content cards too: never an Anki deck's
    return _own_cards(learner_client.user, MINE), _own_cards(stranger.user, THEIRS)


def _ids(client, **query) -> list[int]:
    response = client.get(CARDS, {"page_size": 500, **query})
    assert response.status_code == 200, response.content
    return [row["card_id"] for row in response.json()["results"]]


@pytest.mark.parametrize("name, decks", [
    ("Interview", {"Interview", "Interview::Serving", "Interview::Serving::GPU"}),
    ("Interview::Serving", {"Interview::Serving", "Interview::Serving::GPU"}),
    ("Interview::Serving::GPU", {"Interview::Serving::GPU"}),
    ("Interviewing", {"Interviewing"}),
    ("Inter", set()),                       # a deck's name, not a prefix of one
    ("interview", set()),                   # the name as written
    ("100%_done", {"100%_done"}),
    ("100%", set()),                        # LIKE's wildcards are plain characters
    ("100_", set()),
    ("Ünïcode", {"Ünïcode::Déck"}),
    ("Secret::Deck", set()),                # another learner's deck finds none of theirs
])
def test_an_anki_deck_finds_what_a_direct_query_finds(collections, learner_client, name, decks):
    _check_found(collections, learner_client, name, decks,
                 keep=lambda deck: deck == name or deck.startswith(f"{name}::"))


def _check_found(collections, client, name: str, decks: set, *, keep) -> None:
    """The browser's cards for ``anki_deck=name`` are, in its order, the learner's own cards whose note's deck
    ``keep`` accepts (a direct query), and they come from exactly ``decks``."""
    mine, _ = collections
    user = client.user
    note_decks = dict(OwnNote.objects.filter(user=user).values_list("id", "anki_deck"))
    direct = [card_id for card_id, note_id in UserCard.objects.filter(user=user, card__source_type="own")
              .order_by("due", "card_id").values_list("card_id", "card__source_id") if keep(note_decks[note_id])]
    assert _ids(client, anki_deck=name) == direct
    assert {mine[card_id] for card_id in direct} == decks
    assert len(direct) == sum(1 for deck in MINE if deck in decks)


def _found_by_glob(pattern: str, deck: str) -> bool:
    """Anki's deck:"pattern": the pattern (only `*` a wildcard) matches the deck's name, or the name of a deck
    above it."""
    literal = "*".join(glob.escape(part) for part in pattern.split("*"))
    levels = deck.split("::")
    return bool(deck) and any(fnmatchcase("::".join(levels[:depth]), literal) for depth in range(1, len(levels) + 1))


@pytest.mark.parametrize("pattern, decks", [
    ("Inter*", {"Interview", "Interview::Serving", "Interview::Serving::GPU", "Interviewing"}),
    ("*::GPU", {"Interview::Serving::GPU"}),
    ("*::Serving", {"Interview::Serving", "Interview::Serving::GPU"}),
    ("*view", {"Interview", "Interview::Serving", "Interview::Serving::GPU"}),  # not "Interviewing"
    ("Interview*GPU", {"Interview::Serving::GPU"}),
    ("*", set(MINE) - {""}),               # every imported card, never one written here
    ("**", set(MINE) - {""}),
    ("interview*", set()),                 # the name as written
    ("100%*", {"100%_done"}),              # % and _ stay plain characters
    ("100_*", set()),
    ("*%_*", {"100%_done"}),
    ("1000*", {"1000x"}),
    ("Ü*::Déck", {"Ünïcode::Déck"}),
    ("Inter\\*", set()),                  # a backslash is a backslash
    ("Secret*", set()),                    # another learner's deck finds none of theirs
])
def test_an_anki_deck_wildcard_finds_what_a_direct_query_finds(collections, learner_client, pattern, decks):
    _check_found(collections, learner_client, pattern, decks, keep=lambda deck: _found_by_glob(pattern, deck))


@pytest.mark.parametrize("pattern, decks", [
    ("C++ (GPU)*", {"C++ (GPU)::[x].y"}),
    ("*[x].y", {"C++ (GPU)::[x].y"}),
    ("a.*", {"a.b"}),                      # "." is not any character
    ("a$*", {"a$b"}),
    ("*\\d*", {"back\\d"}),
    ("^*", {"^caret|or"}),
    ("*|or", {"^caret|or"}),
])
def test_an_anki_deck_wildcard_keeps_regex_characters_plain(content, learner_client, quiet_settings, pattern, decks):
    quiet_settings(learner_client.user)
    mine = _own_cards(learner_client.user, ["C++ (GPU)::[x].y", "C++ GPU", "a.b", "axb", "a$b", "back\\d", "back7",
                                            "^caret|or", "caret"])
    found = {mine[card_id] for card_id in _ids(learner_client, anki_deck=pattern)}
    assert found == decks == {deck for deck in mine.values() if _found_by_glob(pattern, deck)}


def test_each_row_and_the_detail_show_the_anki_deck_of_the_learners_own_card_only(collections, learner_client,
                                                                                 django_assert_max_num_queries):
    mine, _ = collections
    with django_assert_max_num_queries(6):  # the deck is read in the page's query, not once per row
        rows = learner_client.get(CARDS, {"page_size": 500}).json()["results"]
    shown = {row["card_id"]: row["anki_deck"] for row in rows}
    content = {row["card_id"] for row in rows if row["source_type"] != "own"}
    assert content and len(shown) == len(content) + len(MINE)
    assert shown == {**{card_id: "" for card_id in content}, **mine}
    for card_id, deck in [*mine.items(), (min(content), "")]:
        detail = learner_client.get(f"/api/v1/flashcards/{card_id}/")
        assert detail.status_code == 200, detail.content
        assert detail.json()["anki_deck"] == deck


def test_the_anki_deck_combines_with_the_other_filters(collections, learner_client):
    mine, _ = collections
    interview = [card_id for card_id, deck in mine.items() if deck == "Interview"]
    assert _ids(learner_client, anki_deck="Interview", q="Front 1 ") == [interview[1]]
    assert _ids(learner_client, anki_deck="Interview", state=[2]) == []
    assert _ids(learner_client, anki_deck="") == _ids(learner_client)  # blank: no filter


def test_the_deck_names_offered_are_the_learners_own_with_the_decks_above_them(collections, learner_client, stranger):
    response = learner_client.get(ANKI_DECKS)
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"name": "100%_done", "cards": 1}, {"name": "1000x", "cards": 1},
        {"name": "Interview", "cards": 4}, {"name": "Interview::Serving", "cards": 2},
        {"name": "Interview::Serving::GPU", "cards": 1}, {"name": "Interviewing", "cards": 1},
        {"name": "Other", "cards": 1}, {"name": "Ünïcode", "cards": 1}, {"name": "Ünïcode::Déck", "cards": 1},
    ]
    assert stranger.get(ANKI_DECKS).json() == [{"name": "Interview", "cards": 1}, {"name": "Secret", "cards": 1},
                                               {"name": "Secret::Deck", "cards": 1}]


def test_a_deck_whose_card_left_the_collection_is_not_offered(collections, learner_client):
    mine, _ = collections
    (other,) = [card_id for card_id, deck in mine.items() if deck == "Other"]
    UserCard.objects.filter(user=learner_client.user, card_id=other).delete()
    assert "Other" not in [deck["name"] for deck in learner_client.get(ANKI_DECKS).json()]
    assert _ids(learner_client, anki_deck="Other") == []


@pytest.mark.parametrize("name", ["Interview::", "::Interview", "Interview::::GPU", "Interview:: ::GPU",
                                  "Inter\x01view", "Inter\tview", "x" * 1001, "Inter\x00view", "*::", "::*",
                                  "Inter*\nview"])
def test_a_malformed_anki_deck_is_a_400_naming_the_field(collections, learner_client, name):
    response = learner_client.get(CARDS, {"anki_deck": name})
    assert response.status_code == 400, response.content
    assert "anki_deck" in response.json()["fields"]


def test_anonymous_gets_no_deck_names(collections):
    assert APIClient().get(ANKI_DECKS).status_code in (401, 403)
