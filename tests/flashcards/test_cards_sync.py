import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.core.content import LoadContext
from apps.flashcards.content import sync_cards
from apps.flashcards.models import Card, Deck, UserCard


def _writes(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].split()[0].upper() in {"INSERT", "UPDATE", "DELETE"}]


def _ctx(tmp_path) -> LoadContext:
    return LoadContext(root=tmp_path)


def test_one_card_per_source_with_expected_text(content, card_of):
    assert Card.objects.count() == 5
    q1 = card_of("question", content["questions"][0])
    assert (q1.front, q1.back) == ("What is *prefill*?", "Prompt pass.")
    assert "<em>prefill</em>" in q1.front_html
    term = card_of("term", content["term"])
    assert (term.front, term.back) == ("Time to first token (TTFT)", "Latency to the first token.")
    number = card_of("number", content["number"])
    assert (number.front, number.back) == ("H100 HBM bandwidth", "3.35 TB/s\n\nFrom the datasheet.")


def test_decks_follow_parts_and_topics(content, card_of, tmp_path):
    sync_cards(_ctx(tmp_path))
    q1, q2, q3 = (card_of("question", q) for q in content["questions"])
    term, number = card_of("term", content["term"]), card_of("number", content["number"])
    members = {deck.slug: set(deck.cards.values_list("id", flat=True)) for deck in Deck.objects.all()}
    assert members == {
        "all": {q1.id, q2.id, q3.id, term.id, number.id},
        "part-foundations": {q1.id, q3.id, term.id},
        "part-serving": {q2.id, number.id},
        "chapter-c1": {q1.id, q3.id, term.id},
        "chapter-c2": {q2.id, number.id},
        "topic-batching": {q1.id},
    }
    parents = {deck.slug: deck.parent.slug if deck.parent else None for deck in Deck.objects.all()}
    assert parents["chapter-c1"] == "part-foundations" and parents["chapter-c2"] == "part-serving"
    assert parents["part-foundations"] is None and parents["topic-batching"] is None


def test_signals_wait_for_commit_so_loads_stay_bulk(content, card_of, django_capture_on_commit_callbacks):
    q1 = content["questions"][0]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        q1.prompt = "Changed?"
        q1.save()
    assert card_of("question", q1).front == "What is *prefill*?"
    assert callbacks


def test_second_sync_writes_nothing(content, tmp_path):
    ctx = _ctx(tmp_path)
    sync_cards(ctx)
    with CaptureQueriesContext(connection) as queries:
        sync_cards(_ctx(tmp_path))
    assert _writes(queries.captured_queries) == []
    assert ctx.counts["cards_question"] == 3


def test_sync_creates_missing_cards_and_retires_orphans(content, tmp_path):
    Card.objects.all().delete()
    orphan = Card.objects.create(source_type="question", source_id=999_999, front="f", back="b", content_hash="x")
    sync_cards(_ctx(tmp_path))
    assert Card.objects.filter(retired=False).count() == 5
    orphan.refresh_from_db()
    assert orphan.retired


def test_editing_a_source_updates_the_card(content, card_of, make_user, django_capture_on_commit_callbacks):
    q2 = content["questions"][1]
    user = make_user()
    card = card_of("question", q2)
    UserCard.objects.create(user=user, card=card, due=card.updated_at, added_at=card.updated_at)
    with django_capture_on_commit_callbacks(execute=True):
        q2.answer = "The token-by-token loop."
        q2.save()
    card.refresh_from_db()
    assert card.back == "The token-by-token loop."
    assert not UserCard.objects.get(card=card).source_changed  # wording only: no "updated" flag


def test_key_version_bump_flags_learners_cards(content, card_of, make_user, django_capture_on_commit_callbacks):
    q1 = content["questions"][0]
    card = card_of("question", q1)
    user = make_user()
    UserCard.objects.create(user=user, card=card, due=card.updated_at, added_at=card.updated_at)
    with django_capture_on_commit_callbacks(execute=True):
        q1.key_version = 2
        q1.save()
    assert UserCard.objects.get(card=card).source_changed is True
    card.refresh_from_db()
    assert card.source_version == 2


def test_deleting_a_source_retires_and_suspends(content, card_of, make_user, django_capture_on_commit_callbacks):
    term = content["term"]
    card = card_of("term", term)
    user = make_user()
    UserCard.objects.create(user=user, card=card, due=card.updated_at, added_at=card.updated_at)
    with django_capture_on_commit_callbacks(execute=True):
        term.delete()
    card.refresh_from_db()
    assert card.retired and not card.decks.exists()
    assert UserCard.objects.get(card=card).suspended


def test_unpublishing_retires_and_republishing_restores(content, card_of, django_capture_on_commit_callbacks):
    q3 = content["questions"][2]
    with django_capture_on_commit_callbacks(execute=True):
        q3.status = "draft"
        q3.save()
    assert card_of("question", q3).retired
    with django_capture_on_commit_callbacks(execute=True):
        q3.status = "published"
        q3.save()
    card = card_of("question", q3)
    assert not card.retired and card.decks.filter(slug="part-foundations").exists()


def test_relinking_chapters_moves_card_between_part_decks(content, card_of, django_capture_on_commit_callbacks):
    q2 = content["questions"][1]
    with django_capture_on_commit_callbacks(execute=True):
        q2.chapters.set([content["chapters"][0]])
    slugs = set(card_of("question", q2).decks.values_list("slug", flat=True))
    assert slugs == {"all", "part-foundations", "chapter-c1"}


@pytest.mark.slow
def test_real_fixtures_load_into_cards(db):
    from apps.core.content import ContentInvalid, load_all
    from apps.quiz.models import Question

    try:
        counts = load_all()
    except ContentInvalid as exc:
        pytest.skip(f"fixtures being edited: {str(exc)[:200]}")
    published = Question.objects.filter(status="published").count()
    assert counts["cards_question"] == published
    assert Card.objects.filter(source_type="question", retired=False).count() == published
    with CaptureQueriesContext(connection) as queries:
        load_all()
    assert not [sql for sql in _writes(queries.captured_queries) if "flashcards" in sql]
