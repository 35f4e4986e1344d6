from django.db import migrations

# The SQL as apps/flashcards/deck_counts.py wrote it when this migration was made, frozen here so that the
# migration never runs later code (tests/flashcards/test_deck_counts_frozen.py compares the two). PostgreSQL only.
CARRY = [
    "ALTER TABLE flashcards_usercard ADD COLUMN deck_ids bigint[] NOT NULL DEFAULT '{}'",
    'CREATE OR REPLACE FUNCTION flashcards_usercard_carry() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  NEW.deck_ids := ARRAY(SELECT m.deck_id FROM flashcards_card_decks m WHERE m.card_id = NEW.card_id ORDER BY m.deck_id);\n  RETURN NEW;\nEND $$',
    'CREATE TRIGGER flashcards_usercard_carry BEFORE INSERT OR UPDATE OF card_id ON flashcards_usercard FOR EACH ROW EXECUTE FUNCTION flashcards_usercard_carry()',
    'CREATE OR REPLACE FUNCTION flashcards_card_decks_carry_insert() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  UPDATE flashcards_usercard u SET deck_ids = ARRAY(SELECT m.deck_id FROM flashcards_card_decks m WHERE m.card_id = u.card_id ORDER BY m.deck_id) WHERE u.card_id IN (SELECT card_id FROM new_rows);\n  RETURN NULL;\nEND $$',
    'CREATE TRIGGER flashcards_card_decks_carry_insert AFTER INSERT ON flashcards_card_decks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION flashcards_card_decks_carry_insert()',
    'CREATE OR REPLACE FUNCTION flashcards_card_decks_carry_delete() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  UPDATE flashcards_usercard u SET deck_ids = ARRAY(SELECT m.deck_id FROM flashcards_card_decks m WHERE m.card_id = u.card_id ORDER BY m.deck_id) WHERE u.card_id IN (SELECT card_id FROM old_rows);\n  RETURN NULL;\nEND $$',
    'CREATE TRIGGER flashcards_card_decks_carry_delete AFTER DELETE ON flashcards_card_decks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION flashcards_card_decks_carry_delete()',
    'CREATE OR REPLACE FUNCTION flashcards_card_decks_carry_update() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  UPDATE flashcards_usercard u SET deck_ids = ARRAY(SELECT m.deck_id FROM flashcards_card_decks m WHERE m.card_id = u.card_id ORDER BY m.deck_id) WHERE u.card_id IN (SELECT card_id FROM old_rows UNION SELECT card_id FROM new_rows);\n  RETURN NULL;\nEND $$',
    'CREATE TRIGGER flashcards_card_decks_carry_update AFTER UPDATE ON flashcards_card_decks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION flashcards_card_decks_carry_update()',
    'DROP INDEX usercard_state_due_id',
    'CREATE INDEX usercard_state_due_id ON flashcards_usercard (user_id, state, due, id) INCLUDE (card_id, suspended, buried_until, deck_ids)',
    'DROP INDEX usercard_learning_due',
    'CREATE INDEX usercard_learning_due ON flashcards_usercard (user_id, due, id) INCLUDE (card_id, state, buried_until, deck_ids) WHERE state IN (1, 3) AND NOT suspended',
    'UPDATE flashcards_usercard u SET deck_ids = ARRAY(SELECT m.deck_id FROM flashcards_card_decks m WHERE m.card_id = u.card_id ORDER BY m.deck_id) WHERE u.deck_ids <> ARRAY(SELECT m.deck_id FROM flashcards_card_decks m WHERE m.card_id = u.card_id ORDER BY m.deck_id)',
]

UNCARRY = [
    'DROP TRIGGER IF EXISTS flashcards_card_decks_carry_insert ON flashcards_card_decks',
    'DROP FUNCTION IF EXISTS flashcards_card_decks_carry_insert()',
    'DROP TRIGGER IF EXISTS flashcards_card_decks_carry_delete ON flashcards_card_decks',
    'DROP FUNCTION IF EXISTS flashcards_card_decks_carry_delete()',
    'DROP TRIGGER IF EXISTS flashcards_card_decks_carry_update ON flashcards_card_decks',
    'DROP FUNCTION IF EXISTS flashcards_card_decks_carry_update()',
    'DROP TRIGGER IF EXISTS flashcards_usercard_carry ON flashcards_usercard',
    'DROP FUNCTION IF EXISTS flashcards_usercard_carry()',
    'DROP INDEX usercard_state_due_id',
    'CREATE INDEX usercard_state_due_id ON flashcards_usercard (user_id, state, due, id)',
    'DROP INDEX usercard_learning_due',
    'CREATE INDEX usercard_learning_due ON flashcards_usercard (user_id, due, id) WHERE state IN (1, 3) AND NOT suspended',
    'ALTER TABLE flashcards_usercard DROP COLUMN deck_ids',
]


def install(apps, schema_editor):
    """Each learner's card carries its card's deck ids, kept by triggers, in the indexes the deck counts read."""
    if schema_editor.connection.vendor == "postgresql":
        for sql in CARRY:
            schema_editor.execute(sql)


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in UNCARRY:
            schema_editor.execute(sql)


class Migration(migrations.Migration):

    dependencies = [
        ('flashcards', '0012_deck_counts'),
    ]

    operations = [
        migrations.RunPython(install, uninstall),
    ]
