"""The deck tree: all → parts → chapters, then topics; each node's counts equal the due queue's for that deck."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.core.models import Status
from apps.flashcards.models import UserCard
from apps.flashcards.presets import preset_assign, preset_create
from apps.flashcards.services import card_bury, card_review, card_suspend, deck_add
from tests.flashcards.conftest import new_review_id, tree_nodes

TREE = "/api/v1/flashcards/deck-tree/"
DUE = "/api/v1/flashcards/due/"


@pytest.fixture
def studied(content, card_of, learner_client, quiet_settings):
    """Every card added; q1 in learning, q2 a review due yesterday, the number suspended, the term buried."""
    user = learner_client.user
    quiet_settings(user)
    deck_add(user=user, slug="all", now=timezone.now())
    q1, q2, _ = (card_of("question", q).id for q in content["questions"])
    past = timezone.now() - timedelta(days=9)
    card_review(user=user, card_id=q1, rating=3, review_id=new_review_id(), now=past)
    card_review(user=user, card_id=q2, rating=4, review_id=new_review_id(), now=past)
    card_suspend(user=user, card_id=card_of("number", content["number"]).id, suspended=True)
    card_bury(user=user, card_id=card_of("term", content["term"]).id, now=timezone.now())
    return learner_client


def test_tree_shape_parts_chapters_topics(studied):
    tree = studied.get(TREE).json()
    assert [root["slug"] for root in tree["decks"]] == ["all", "topic-batching"]
    everything = tree["decks"][0]
    assert [part["slug"] for part in everything["children"]] == ["part-foundations", "part-serving"]
    assert [[c["slug"] for c in part["children"]] for part in everything["children"]] == [["chapter-c1"],
                                                                                         ["chapter-c2"]]
    nodes = tree_nodes(tree)
    assert nodes["chapter-c1"]["title"] == "C1" and nodes["chapter-c1"]["kind"] == "chapter"
    assert (nodes["all"]["total"], nodes["all"]["in_collection"]) == (5, 5)
    assert (nodes["part-foundations"]["total"], nodes["chapter-c2"]["total"]) == (3, 2)


@pytest.mark.parametrize("limits", [{}, {"new_cards_per_day": 1}, {"new_cards_per_day": 0, "max_reviews_per_day": 0}])
def test_every_node_counts_what_its_due_queue_counts(studied, quiet_settings, limits):
    quiet_settings(studied.user, **limits)
    nodes = tree_nodes(studied.get(TREE).json())
    assert len(nodes) == 6
    for slug, node in nodes.items():
        due = studied.get(DUE, {"deck": slug, "limit": 200}).json()
        assert node["counts"] == due["counts"], slug
    assert nodes["all"]["counts"] == {"learning": 1, "review": min(1, limits.get("max_reviews_per_day", 9)),
                                      "new": min(1, limits.get("new_cards_per_day", 9))}
    assert nodes["chapter-c1"]["counts"]["learning"] == 1 and nodes["chapter-c2"]["counts"]["learning"] == 0


def test_a_card_in_two_chapters_counts_once_in_the_part(content, studied, quiet_settings):
    from apps.courses.models import Chapter
    from apps.flashcards.content import sync_all_cards

    extra = Chapter.objects.create(slug="c3", part=content["parts"][0], order=2, title="C3", summary="s", body="b")
    content["questions"][2].chapters.add(extra)  # q3 (new) in c1 and c3, both in Foundations
    sync_all_cards()
    nodes = tree_nodes(studied.get(TREE).json())
    assert nodes["chapter-c1"]["counts"]["new"] == nodes["chapter-c3"]["counts"]["new"] == 1
    assert nodes["part-foundations"]["counts"]["new"] == 1
    assert nodes["part-foundations"]["counts"] == studied.get(DUE, {"deck": "part-foundations"}).json()["counts"]


def test_study_this_subtree_serves_only_its_cards(studied, content, card_of):
    c2_cards = {card_of("question", content["questions"][1]).id}  # the number (also c2) is suspended
    body = studied.get(DUE, {"deck": "chapter-c2", "limit": 50}).json()
    assert {card["card_id"] for card in body["cards"]} == c2_cards
    part = studied.get(DUE, {"deck": "part-foundations", "limit": 50}).json()
    c1_active = {card_of("question", q).id for q in (content["questions"][0], content["questions"][2])}
    assert {card["card_id"] for card in part["cards"]} == c1_active


def test_draft_chapter_and_part_decks_are_hidden(studied, content):
    chapter = content["chapters"][0]
    chapter.status = Status.DRAFT
    chapter.save()
    nodes = tree_nodes(studied.get(TREE).json())
    assert "chapter-c1" not in nodes and "part-foundations" in nodes
    part = content["parts"][1]
    part.status = Status.DRAFT
    part.save()
    nodes = tree_nodes(studied.get(TREE).json())
    assert "part-serving" not in nodes and "chapter-c2" not in nodes


def test_other_learners_cards_do_not_count(studied, make_user):
    from rest_framework.test import APIClient

    stranger = APIClient()
    stranger.force_authenticate(make_user())
    nodes = tree_nodes(stranger.get(TREE).json())
    assert all(node["in_collection"] == 0 and node["counts"] == {"learning": 0, "review": 0, "new": 0}
               for node in nodes.values())
    assert UserCard.objects.filter(user=studied.user).count() == 5


def test_bad_deck_filter_is_400_naming_the_field_and_unknown_deck_404(studied):
    response = studied.get(DUE, {"deck": "not a slug!"})
    assert response.status_code == 400 and "deck" in response.json()["fields"]
    assert studied.get(DUE, {"deck": "chapter-nope"}).status_code == 404


def test_tree_needs_sign_in(api_client, db):
    assert api_client.get(TREE).status_code in (401, 403)


def test_tree_queries_do_not_grow_with_the_collection(studied, django_assert_max_num_queries):
    with django_assert_max_num_queries(9):  # one of them reads the learner's deck presets (none here)
        studied.get(TREE)


def test_tree_queries_with_presets_do_not_grow_either(studied, django_assert_max_num_queries):
    preset = preset_create(user=studied.user, name="Strict", new_cards_per_day=1)
    for slug in ("part-foundations", "chapter-c2", "topic-batching"):
        preset_assign(user=studied.user, deck_slug=slug, preset_id=preset.pk)
    with django_assert_max_num_queries(10):  # and one more counts today's reviews in the decks that have presets
        studied.get(TREE)


def test_visible_decks_in_one_query_hide_what_the_hidden_slugs_hide(studied, content, django_assert_num_queries):
    from apps.courses.models import Chapter
    from apps.flashcards.content import hidden_deck_slugs, visible_decks
    from apps.flashcards.models import Deck

    content["parts"][1].status = Status.DRAFT
    content["parts"][1].save()
    Chapter.objects.create(slug="c9", part=content["parts"][0], order=9, title="C9", summary="s", body="b",
                           status=Status.DRAFT)
    Deck.objects.create(slug="chapter-c9", title="C9", kind="chapter", order=1109)
    expected = list(Deck.objects.exclude(slug__in=hidden_deck_slugs()))
    assert {"part-serving", "chapter-c2", "chapter-c9"}.isdisjoint(deck.slug for deck in expected)
    with django_assert_num_queries(1):
        assert list(visible_decks()) == expected
    with django_assert_num_queries(0):  # kept per content version
        assert list(visible_decks()) == expected
    added = Deck.objects.create(slug="topic-new", title="New", kind="topic", order=3000)  # a deck is content
    assert added in visible_decks()
    content["parts"][1].status = Status.PUBLISHED
    content["parts"][1].save()
    assert "part-serving" in {deck.slug for deck in visible_decks()}


def test_topic_decks_read_as_the_field_writes_them(content):
    """A topic deck is titled from its slug as the field writes it ('KV cache', 'API', "Little's law"), and a deck
    made before under an older title takes the new one on the next sync (it read 'Api' and 'Kv cache')."""
    from apps.flashcards.content import sync_all_cards
    from apps.flashcards.models import Deck
    from apps.quiz.models import Topic

    question = content["questions"][0]
    question.topics.add(Topic.objects.create(slug="kv-cache"), Topic.objects.create(slug="api"),
                        Topic.objects.create(slug="littles-law"))
    Deck.objects.filter(slug="topic-api").delete()
    Deck.objects.create(slug="topic-api", title="Api", kind="topic", order=10_000)
    sync_all_cards()
    titles = dict(Deck.objects.filter(kind="topic").values_list("slug", "title"))
    assert {titles["topic-kv-cache"], titles["topic-api"], titles["topic-littles-law"], titles["topic-batching"]} == {
        "KV cache", "API", "Little's law", "Batching"}


def _content_topic_slugs() -> set[str]:
    import yaml

    from apps.core.content import FIXTURES_DIR

    slugs: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "topics" and isinstance(item, list):
                    slugs.update(slug for slug in item if isinstance(slug, str))
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in (FIXTURES_DIR / "questions").rglob("*.y*ml"):
        walk(yaml.safe_load(path.read_text()))
    return slugs


def test_every_topic_deck_of_the_content_reads_as_words_not_a_slug():
    """The deck tree's topic decks are titled from the content's topic slugs: none may read as a slug with its first
    letter raised ('Api', 'Kv cache', 'Vllm', 'Multi node'), and compound words keep their hyphen or slash."""
    from apps.quiz.models import TOPIC_WORDS, topic_title

    slugs = _content_topic_slugs()
    assert len(slugs) > 50
    miscased = {word.capitalize() for word in TOPIC_WORDS.values() if word != word.capitalize()}
    miscased |= {word.lower() for word in TOPIC_WORDS.values() if word != word.lower()}
    for slug in slugs:
        title = topic_title(slug)
        assert "-" not in title or slug in TOPIC_WORDS, (slug, title)
        words = {word for part in title.split(" ") for word in part.split("/")}
        assert not words & miscased, (slug, title)
    assert {topic_title(slug) for slug in ("api", "multi-node", "multi-tenancy", "prefill-decode")} == {
        "API", "Multi-node", "Multi-tenancy", "Prefill/decode"}
