"""CSV imports as jobs: the kit's own CSV export comes back in place (no duplicate), a row's later schedule is
taken, rows of someone's spreadsheet become own cards once, and a bad row names itself with nothing changed."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.flashcards.models import OwnNote, UserCard
from apps.flashcards.services import card_review, deck_add
from tests.flashcards.conftest import import_file, new_review_id

pytestmark = pytest.mark.django_db
EXPORT = "/api/v1/flashcards/export/?format=csv"


@pytest.fixture
def collection(content, learner_client, quiet_settings, card_of):
    quiet_settings(learner_client.user)
    deck_add(user=learner_client.user, slug="all", now=timezone.now() - timedelta(days=3))
    card_review(user=learner_client.user, card_id=card_of("question", content["questions"][0]).id, rating=3,
                review_id=new_review_id(), now=timezone.now() - timedelta(days=2))
    return learner_client


def done(client, body: bytes) -> dict:
    status, job = import_file(client, body, "csv")
    assert (status, job["status"]) == (202, "done"), job
    return job["result"]


def test_our_own_csv_export_comes_back_in_place(collection):
    held = UserCard.objects.filter(user=collection.user).count()
    exported = collection.get(EXPORT).content
    assert done(collection, exported) == {"cards": 0, "updated": 0, "own_cards": 0, "skipped": 0}
    assert UserCard.objects.filter(user=collection.user).count() == held and not OwnNote.objects.exists()


def test_a_later_review_in_the_file_replaces_the_schedule_and_another_account_gets_the_cards(collection, card_of,
                                                                                             content, make_user):
    from rest_framework.test import APIClient

    text = collection.get(EXPORT).content.decode()
    header, body = text.split('"', 1)
    rows = list(csv.reader(io.StringIO('"' + body)))
    columns = header.strip().splitlines()[3].removeprefix("#columns:").split(",")
    studied = card_of("question", content["questions"][0])
    row = next(r for r in rows if r[columns.index("Card id")] == str(studied.pk))
    later = timezone.now() - timedelta(hours=1)
    row[columns.index("Last review")], row[columns.index("Reps")] = later.isoformat(), "7"
    row[columns.index("Due")] = (later + timedelta(days=9)).isoformat()
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    edited = (header + out.getvalue()).encode()
    assert done(collection, edited)["updated"] == 1
    assert UserCard.objects.get(user=collection.user, card=studied).reps == 7
    other = APIClient()
    other.force_authenticate(make_user())
    result = done(other, edited)
    assert result["cards"] == len(rows) and result["own_cards"] == 0  # the content cards, with their schedules
    assert UserCard.objects.get(user=other.handler._force_user, card=studied).reps == 7


def test_a_spreadsheet_becomes_own_cards_once(collection):
    sheet = b"Front,Back\nWhat is TTFT?,Time to first token.\n\"Why batch, at all?\",Throughput.\n"
    assert done(collection, sheet) == {"cards": 2, "updated": 0, "own_cards": 2, "skipped": 0}
    assert done(collection, sheet) == {"cards": 0, "updated": 0, "own_cards": 0, "skipped": 2}
    assert set(OwnNote.objects.filter(user=collection.user).values_list("front", flat=True)) == {
        "What is TTFT?", "Why batch, at all?"}


@pytest.mark.parametrize("sheet, field", [
    (b"Question,Answer\nA,B\n", "file"), (b"\xff\xfe bad", "file"), (b"Front,Back\nA\n", "rows.0"),
    (b"Front,Back,GUID,State\nA,B,x,remembered\n", "rows.0.State"),
    (b"Front,Back,State,Due,Last review,Stability,Difficulty\nA,B,Review,2026-01-01,,3,5\n", "rows.0.Due"),
    (b"Front,Back,State,Due,Last review,Stability,Difficulty\nA,B,Review,2026-01-01T00:00:00+00:00,"
     b"2025-12-20T00:00:00+00:00,-1,5\n", "rows.0.Stability"),
    (b"Front,Back\n" + b"x" * 2001 + b",B\n", "rows.0"),
])
def test_a_bad_file_names_the_row_and_changes_nothing(collection, sheet, field):
    status, job = import_file(collection, sheet, "csv")
    assert (status, job["status"]) == (202, "failed"), job
    assert field in job["error"]["fields"], job["error"]
    assert not OwnNote.objects.filter(user=collection.user).exists()
