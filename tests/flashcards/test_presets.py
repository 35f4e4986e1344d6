"""Deck option presets, as Anki's: created, assigned to decks, limiting the due queue (and the deck tree, equally),
scheduling their cards with their own steps, and fitted by the FSRS optimizer on their own cards' reviews.

The small curriculum (conftest): chapter c1 (part foundations) holds q1, q3 and the term; chapter c2 (part serving)
holds q2 and the number; topic batching holds q1.
"""

import pytest
from django.utils import timezone

from apps.flashcards.models import Deck, DeckKind, DeckPreset, UserCard
from apps.flashcards.services import card_review, deck_add
from apps.flashcards.state import settings_get
from tests.flashcards.conftest import T0, new_review_id
from tests.flashcards.test_transfer_optimize import _synthetic_history

PRESETS = "/api/v1/flashcards/presets/"
TREE = "/api/v1/flashcards/deck-tree/"
DUE = "/api/v1/flashcards/due/"
STRICT = {"name": "Two a day", "new_cards_per_day": 2, "max_reviews_per_day": 50, "desired_retention": 0.85,
          "learning_steps": [3, 30], "relearning_steps": [15]}


@pytest.fixture
def collection(content, learner_client, quiet_settings):
    quiet_settings(learner_client.user)
    deck_add(user=learner_client.user, slug="all", now=timezone.now())
    return learner_client


def _create(client, **changes) -> dict:
    response = client.post(PRESETS, {**STRICT, **changes}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _assign(client, slug: str, preset_id):
    response = client.put(f"/api/v1/flashcards/decks/{slug}/preset/", {"preset": preset_id}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _nodes(decks):
    for node in decks:
        yield node
        yield from _nodes(node["children"])


def _tree_equals_queue(client) -> dict[str, dict]:
    tree = {node["slug"]: node for node in _nodes(client.get(TREE).json()["decks"])}
    for slug, node in tree.items():
        assert client.get(DUE, {"deck": slug, "limit": 200}).json()["counts"] == node["counts"], slug
    return tree


def test_create_read_update_delete(collection):
    client = collection
    preset = _create(client)
    assert preset == {"id": preset["id"], **STRICT, "parameters": [], "decks": []}
    changed = client.patch(f"{PRESETS}{preset['id']}/", {"new_cards_per_day": 5}, format="json").json()
    assert changed["new_cards_per_day"] == 5 and changed["name"] == "Two a day"
    assert [row["id"] for row in client.get(PRESETS).json()] == [preset["id"]]
    _assign(client, "chapter-c1", preset["id"])
    assert client.get(f"{PRESETS}{preset['id']}/").json()["decks"] == ["chapter-c1"]
    assert client.delete(f"{PRESETS}{preset['id']}/").status_code == 204
    assert client.get(PRESETS).json() == []
    assert next(n for n in _nodes(client.get(TREE).json()["decks"]) if n["slug"] == "chapter-c1")["preset"] is None


@pytest.mark.parametrize("changes, field", [
    ({"name": ""}, "name"), ({"name": "x" * 81}, "name"), ({"desired_retention": 0.5}, "desired_retention"),
    ({"new_cards_per_day": -1}, "new_cards_per_day"), ({"max_reviews_per_day": "lots"}, "max_reviews_per_day"),
    ({"learning_steps": [0]}, "learning_steps"), ({"relearning_steps": "10"}, "relearning_steps"),
])
def test_bad_preset_names_the_field(collection, changes, field):
    response = collection.post(PRESETS, {**STRICT, **changes}, format="json")
    assert response.status_code == 400
    assert [name for name in response.json()["fields"] if name.split(".")[0] == field]  # a list item: "field.0"


def test_a_second_preset_of_the_same_name_is_refused(collection):
    _create(collection)
    response = collection.post(PRESETS, STRICT, format="json")
    assert response.status_code == 400 and "name" in response.json()["fields"]


def test_bad_assignments(collection):
    client = collection
    preset = _create(client)
    for payload, field in (({"preset": "two"}, "preset"), ({}, "preset"), ({"preset": 0}, "preset")):
        response = client.put("/api/v1/flashcards/decks/chapter-c1/preset/", payload, format="json")
        assert response.status_code == 400 and field in response.json()["fields"], payload
    response = client.put("/api/v1/flashcards/decks/all/preset/", {"preset": preset["id"]}, format="json")
    assert response.status_code == 400 and "deck" in response.json()["fields"]
    assert client.put("/api/v1/flashcards/decks/no-such/preset/", {"preset": preset["id"]},
                      format="json").status_code == 404


def test_another_learners_preset_is_404_everywhere(collection, stranger):
    preset = _create(collection)
    url = f"{PRESETS}{preset['id']}/"
    assert stranger.get(url).status_code == 404
    assert stranger.patch(url, {"name": "mine"}, format="json").status_code == 404
    assert stranger.delete(url).status_code == 404
    assert stranger.put("/api/v1/flashcards/decks/chapter-c1/preset/", {"preset": preset["id"]},
                        format="json").status_code == 404
    assert stranger.post("/api/v1/flashcards/optimize/", {"preset": preset["id"]}, format="json").status_code == 404
    assert stranger.get(PRESETS).json() == []
    assert DeckPreset.objects.get(pk=preset["id"]).name == "Two a day"


def test_a_decks_preset_limits_its_queue_and_the_tree_counts_the_same(collection, content, card_of):
    client = collection
    strict = _create(client)  # 2 new cards a day
    _assign(client, "chapter-c1", strict["id"])
    tree = _tree_equals_queue(client)
    # c1 holds 3 new cards, its preset allows 2; its part and All cards follow the Default (20 a day)
    assert tree["chapter-c1"]["counts"]["new"] == 2 and tree["chapter-c1"]["preset"]["name"] == "Two a day"
    assert tree["part-foundations"]["counts"]["new"] == 3 and tree["all"]["counts"]["new"] == 5
    card_review(user=client.user, card_id=card_of("question", content["questions"][0]).id, rating=3,
                review_id=new_review_id(), now=timezone.now())
    tree = _tree_equals_queue(client)
    assert tree["chapter-c1"]["counts"]["new"] == 1  # 2 a day, 1 of them seen today; 2 new cards remain


def test_a_generous_preset_lifts_the_default_limit_for_its_decks(collection):
    client = collection
    client.patch("/api/v1/srs/settings/", {"new_cards_per_day": 1}, format="json")
    generous = _create(client, name="Interview week", new_cards_per_day=50)
    _assign(client, "part-serving", generous["id"])
    tree = _tree_equals_queue(client)
    # the part's preset covers its chapter c2 too (q2 and the number); everything else keeps the Default's 1
    assert tree["part-serving"]["counts"]["new"] == 2 and tree["chapter-c2"]["counts"]["new"] == 2
    assert tree["chapter-c1"]["counts"]["new"] == 1 and tree["all"]["counts"]["new"] == 1


def test_cards_are_scheduled_with_their_decks_preset(collection, content, card_of):
    client = collection
    strict = _create(client)  # learning steps 3 and 30 minutes
    _assign(client, "chapter-c1", strict["id"])
    q1 = card_of("question", content["questions"][0]).id  # in c1
    q2 = card_of("question", content["questions"][1]).id  # in c2: the Default's steps, 1 and 10 minutes
    intervals = {card["card_id"]: card["intervals"] for card in client.get(DUE, {"limit": 50}).json()["cards"]}
    # a new card rated Good moves to the second learning step: 30 minutes with the preset, 10 with the Default
    assert (intervals[q1]["3"], intervals[q2]["3"]) == (1800, 600)
    assert intervals[q1]["1"] == 180  # Again: back to the first step, 3 minutes
    card_review(user=client.user, card_id=q1, rating=3, review_id=new_review_id(), now=T0)
    card_review(user=client.user, card_id=q2, rating=3, review_id=new_review_id(), now=T0)
    due = dict(UserCard.objects.filter(user=client.user, card_id__in=[q1, q2]).values_list("card_id", "due"))
    assert ((due[q1] - T0).total_seconds(), (due[q2] - T0).total_seconds()) == (1800, 600)


def test_the_optimizer_fits_one_presets_cards_and_applies_to_it(learner_client, settings,
                                                                 django_capture_on_commit_callbacks):
    client, user = learner_client, learner_client.user
    _synthetic_history(user, cards=80, per_card=8)  # 640 reviews
    deck = Deck.objects.create(slug="topic-crammed", title="Crammed", kind=DeckKind.TOPIC, order=5000)
    deck.cards.set(UserCard.objects.filter(user=user).order_by("card_id").values_list("card_id", flat=True)[:60])
    preset = _create(client)
    _assign(client, "topic-crammed", preset["id"])
    response = client.post("/api/v1/flashcards/optimize/", format="json")  # the Default's cards: 20 × 8 reviews
    assert response.status_code == 400 and "160" in response.json()["fields"]["reviews"][0]
    settings.CELERY_TASK_ALWAYS_EAGER = True
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/flashcards/optimize/", {"preset": preset["id"]}, format="json")
    assert response.status_code == 202, response.content
    assert (response.json()["review_count"], response.json()["preset"]) == (60 * 8, preset["id"])
    job = client.get(f"/api/v1/flashcards/optimize/{response.json()['id']}/").json()
    assert job["status"] == "done", job
    client.post(f"/api/v1/flashcards/optimize/{job['id']}/apply/")
    assert DeckPreset.objects.get(pk=preset["id"]).parameters == job["parameters"]
    assert settings_get(user=user).parameters == []  # the Default keeps its own


def test_bad_optimize_preset_names_the_field(learner_client):
    response = learner_client.post("/api/v1/flashcards/optimize/", {"preset": "x"}, format="json")
    assert response.status_code == 400 and "preset" in response.json()["fields"]
