"""Each question kind's object, end to end on a real question of that kind from the content: its key validates to
itself, the right answer grades right and a wrong one does not, what a learner sees hides the answer, the fixture
row the exporter writes validates back to the same key, and the card Anki imports from the kit's package shows
what the question offers on the front and the right answer on the back."""

import html
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from apps.core.rendering import render_markdown
from apps.flashcards.interchange.anki_export import ANKI_NOTE_ID_BASE, export_apkg
from apps.flashcards.models import Card, SourceType
from apps.flashcards.services import deck_add
from apps.quiz.export import question_row
from apps.quiz.kinds import REGISTRY, grade, kind_of, public_key, validate_key
from apps.quiz.models import Question

anki_collection = pytest.importorskip("anki.collection")
pytestmark = pytest.mark.django_db

# The right answer in each kind's answer terms, written from the key by hand (not by the code under test), and the
# texts a card must offer so that it can be answered without the kit.
RIGHT = {
    "single_choice": lambda key: {"selected": [i for i, option in enumerate(key["options"]) if option["correct"]]},
    "multiple_choice": lambda key: {"selected": [i for i, option in enumerate(key["options"]) if option["correct"]]},
    "numeric": lambda key: {"value": key["numeric"]["value"], "unit": key["numeric"]["unit"]},
    "ordering": lambda key: {"order": list(key["items"])},
    "categorize": lambda key: {"placement": {item["text"]: item["bin"] for item in key["items"]}},
    "matching": lambda key: {"matches": {pair["left"]: pair["right"] for pair in key["pairs"]}},
}
WRONG = {
    "single_choice": lambda key: {"selected": [next(i for i, o in enumerate(key["options"]) if not o["correct"])]},
    "multiple_choice": lambda key: {"selected": [i for i, o in enumerate(key["options"]) if not o["correct"]]},
    "numeric": lambda key: {"value": key["numeric"]["value"] * 3 + 1, "unit": key["numeric"]["unit"]},
    "ordering": lambda key: {"order": list(reversed(key["items"]))},
    "categorize": lambda key: {"placement": {item["text"]: next(b for b in key["bins"] if b != item["bin"])
                                             for item in key["items"]}},
    "matching": lambda key: {"matches": dict(zip([p["left"] for p in key["pairs"]],
                                                 [p["right"] for p in key["pairs"][1:] + key["pairs"][:1]],
                                                 strict=True))},
}
OFFERED = {
    "single_choice": lambda key: [option["text"] for option in key["options"]],
    "multiple_choice": lambda key: [option["text"] for option in key["options"]],
    "numeric": lambda key: [key["numeric"]["unit"]] if key["numeric"]["unit"] else [],
    "ordering": lambda key: list(key["items"]),
    "categorize": lambda key: list(key["bins"]) + [item["text"] for item in key["items"]],
    "matching": lambda key: [pair["left"] for pair in key["pairs"]] + [pair["right"] for pair in key["pairs"]],
    "open": lambda key: [],
}


def _plain(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]*>", "", text)).split())


def _shown(markdown: str) -> str:
    """A text as the card shows it: rendered, then without tags."""
    return _plain(render_markdown(markdown))


def _one_of_each_kind() -> dict[str, Question]:
    chosen: dict[str, Question] = {}
    for question in Question.objects.live().filter(status="published").order_by("id"):
        chosen.setdefault(question.kind, question)
    return chosen


def test_the_content_has_every_kind_and_every_kind_round_trips(real_content, make_user):
    questions = _one_of_each_kind()
    assert set(questions) == set(REGISTRY), "every registered kind has a published question in the content"
    for slug, question in questions.items():
        kind, key = kind_of(slug), question.key
        assert validate_key(slug, key) == key, slug  # stored keys are the normalized ones
        shown = public_key(slug, key, shuffle_seed=7)
        assert "correct" not in str(shown) and "why" not in str(shown), slug
        if kind.auto_checked:
            right = grade(slug, key, RIGHT[slug](key))
            assert right.correct and right.score == 1.0, slug
            wrong = grade(slug, key, WRONG[slug](key))
            assert not wrong.correct and wrong.score < 1.0, slug
            assert kind.explanation(key), slug
        row = question_row(question)
        exported_key = {name: row[name] for name in row if name in ("options", "numeric", "items", "bins", "pairs")}
        assert validate_key(slug, exported_key) == key, slug

    learner = make_user("kinds-learner")
    deck_add(user=learner, slug="all", now=datetime(2026, 12, 1, tzinfo=UTC))
    package = export_apkg(user=learner, now=datetime(2026, 12, 1, tzinfo=UTC))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kit.apkg"
        path.write_bytes(package)
        col = anki_collection.Collection(str(Path(folder) / "collection.anki2"))
        try:
            col.import_anki_package(anki_collection.ImportAnkiPackageRequest(
                package_path=str(path), options=anki_collection.ImportAnkiPackageOptions(with_scheduling=True)))
            for slug, question in questions.items():
                card = Card.objects.get(source_type=SourceType.QUESTION, source_id=question.pk)
                note = col.get_note(ANKI_NOTE_ID_BASE + card.pk)
                front, back = _plain(note["Front"]), _plain(note["Back"])
                for text in OFFERED[slug](question.key):
                    assert _shown(text) in front, (slug, text)
                for line in kind_of(slug).explanation(question.key).splitlines():
                    assert _shown(line) in back, (slug, line)
        finally:
            col.close()
