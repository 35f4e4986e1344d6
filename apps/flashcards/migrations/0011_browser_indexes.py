from django.db import migrations, models

# Indexes Django's model state does not describe:
# - a deck's cards in card order, (deck, card) on the deck membership table: the card browser's deck and topic
#   filters and the due queue of one deck read a deck's card ids from this index alone (the table's own indexes are
#   (card, deck) and deck alone, which needs a visit to the table per card);
# - trigram indexes for the card browser's text search (a case-insensitive substring of the front or back, which
#   Django writes as UPPER(column) LIKE UPPER(pattern)): PostgreSQL only (pg_trgm comes with courses 0003); SQLite
#   keeps scanning, which is fine at development sizes.
DECK_CARDS = ("flashcards_card_decks_deck_card", "CREATE INDEX IF NOT EXISTS flashcards_card_decks_deck_card "
              "ON flashcards_card_decks (deck_id, card_id)")
TRIGRAMS = [(name, f'CREATE INDEX IF NOT EXISTS {name} ON flashcards_card USING gin (UPPER("{column}") gin_trgm_ops)')
            for name, column in (("flashcards_card_front_trgm", "front"), ("flashcards_card_back_trgm", "back"))]


def _indexes(connection) -> list[tuple[str, str]]:
    return [DECK_CARDS, *TRIGRAMS] if connection.vendor == "postgresql" else [DECK_CARDS]


def create_indexes(apps, schema_editor):
    for _, sql in _indexes(schema_editor.connection):
        schema_editor.execute(sql)


def drop_indexes(apps, schema_editor):
    for name, _ in _indexes(schema_editor.connection):
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):

    dependencies = [
        ("courses", "0003_trigram_extension"),
        ("flashcards", "0010_ownnote_anki_deck"),
    ]

    operations = [
        # the card browser's default order (due, then card): a page is a LIMITed walk of this index
        migrations.AddIndex(
            model_name="usercard",
            index=models.Index(fields=["user", "due", "card"], name="usercard_browse_due"),
        ),
        migrations.RunPython(create_indexes, drop_indexes),
    ]
