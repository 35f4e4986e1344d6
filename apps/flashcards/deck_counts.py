"""Per-deck counts that change only when cards, deck memberships or card states change, kept up to date by the
database itself, and the per-request counts that depend on the clock.

The deck tree and the deck list show, for every deck, the cards the learner may see, those in their collection and
the due queue's three counts. Counting all of that on each request visits every (card, deck) membership of the
collection (150,000 rows for 50,000 cards in three decks each). Most of it does not depend on the time:

- ``UserDeckCount`` (learner, deck; deck null: the whole collection): their cards in the deck, those whose card is
  not retired, and the new cards not suspended (with and without the retired ones);
- ``DeckCardCount`` (deck, owner; 0: content cards): the deck's cards that are not retired.

Triggers on the UserCard, card and deck-membership tables keep both exact in the same transaction as the write
(statement-level triggers with transition tables on PostgreSQL, so a bulk UPDATE or a 50,000-card import adds one
grouped upsert per statement; row-level triggers on SQLite). Every write path is covered that way, including
``QuerySet.update``, ``bulk_create``, cascading deletes and raw SQL; only TRUNCATE is not (``recount`` rebuilds
the rows from scratch, as the migration that created them did). Migration 0012 holds this module's SQL as it was
then, frozen: a change to that SQL needs a new migration that drops and installs the triggers again (a test compares
the two).

A request then counts only what the clock decides (``request_counts``): learning cards due by now and review cards
due before the day ends (the due queue's own filters, each read from its index), and takes off the stored new-card
count the new cards that are buried now or due after today, the learner's few such cards.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection, transaction

from apps.flashcards.models import UserDeckCount

USER_DECK_COUNT = "flashcards_userdeckcount"
DECK_CARD_COUNT = "flashcards_deckcardcount"
COUNT_COLUMNS = ("cards", "live", "new_cards", "live_new_cards")

# --- what a set of changed rows adds (sign 1) or takes away (sign -1) --------------------------------------------
# Each template reads ``{changes}``: a subquery of changed rows with a ``sign`` column. Plain SQL both databases
# run (SQLite allows no WITH inside a trigger, so the changes are a subquery in FROM).

_NEW_ACTIVE = "{u}.state = 0 AND NOT {u}.suspended"


def _user_card_delta(changes: str, *, per_deck: bool) -> str:
    """(user, deck, counts) from changed UserCard rows (user_id, card_id, state, suspended, sign)."""
    new = _NEW_ACTIVE.format(u="ch")
    deck, join, group = (("m.deck_id", " JOIN flashcards_card_decks m ON m.card_id = ch.card_id", ", m.deck_id")
                         if per_deck else ("CAST(NULL AS bigint)", "", ""))
    return (f"SELECT ch.user_id AS user_id, {deck} AS deck_id, SUM(ch.sign) AS cards, "
            f"SUM(CASE WHEN c.retired THEN 0 ELSE ch.sign END) AS live, "
            f"SUM(CASE WHEN {new} THEN ch.sign ELSE 0 END) AS new_cards, "
            f"SUM(CASE WHEN {new} AND NOT c.retired THEN ch.sign ELSE 0 END) AS live_new_cards "
            f"FROM {changes} ch JOIN flashcards_card c ON c.id = ch.card_id{join} GROUP BY ch.user_id{group}")


def _membership_user_delta(changes: str) -> str:
    """(user, deck, counts) from changed memberships (card_id, deck_id, sign): every learner holding the card."""
    new = _NEW_ACTIVE.format(u="u")
    return ("SELECT u.user_id AS user_id, ch.deck_id AS deck_id, SUM(ch.sign) AS cards, "
            "SUM(CASE WHEN c.retired THEN 0 ELSE ch.sign END) AS live, "
            f"SUM(CASE WHEN {new} THEN ch.sign ELSE 0 END) AS new_cards, "
            f"SUM(CASE WHEN {new} AND NOT c.retired THEN ch.sign ELSE 0 END) AS live_new_cards "
            f"FROM {changes} ch JOIN flashcards_card c ON c.id = ch.card_id "
            "JOIN flashcards_usercard u ON u.card_id = ch.card_id GROUP BY u.user_id, ch.deck_id")


def _membership_deck_delta(changes: str) -> str:
    """(deck, owner, cards) from changed memberships (card_id, deck_id, sign)."""
    return ("SELECT ch.deck_id AS deck_id, COALESCE(c.owner_id, 0) AS owner_id, SUM(ch.sign) AS cards "
            f"FROM {changes} ch JOIN flashcards_card c ON c.id = ch.card_id WHERE NOT c.retired "
            "GROUP BY ch.deck_id, COALESCE(c.owner_id, 0)")


def _card_user_delta(changes: str, *, per_deck: bool) -> str:
    """(user, deck, counts) from changed cards (card_id, retired, owner_id, sign): only the retired-dependent ones."""
    new = _NEW_ACTIVE.format(u="u")
    deck, join, group = (("m.deck_id", " JOIN flashcards_card_decks m ON m.card_id = ch.card_id", ", m.deck_id")
                         if per_deck else ("CAST(NULL AS bigint)", "", ""))
    return (f"SELECT u.user_id AS user_id, {deck} AS deck_id, 0 AS cards, "
            "SUM(CASE WHEN ch.retired THEN 0 ELSE ch.sign END) AS live, 0 AS new_cards, "
            f"SUM(CASE WHEN {new} AND NOT ch.retired THEN ch.sign ELSE 0 END) AS live_new_cards "
            f"FROM {changes} ch JOIN flashcards_usercard u ON u.card_id = ch.card_id{join} GROUP BY u.user_id{group}")


def _card_deck_delta(changes: str) -> str:
    return ("SELECT m.deck_id AS deck_id, COALESCE(ch.owner_id, 0) AS owner_id, "
            "SUM(CASE WHEN ch.retired THEN 0 ELSE ch.sign END) AS cards "
            f"FROM {changes} ch JOIN flashcards_card_decks m ON m.card_id = ch.card_id "
            "GROUP BY m.deck_id, COALESCE(ch.owner_id, 0)")


# --- applying a delta: add to the row, creating it only when cards arrive ------------------------------------------
# Rows are written in (learner, deck) order, and every trigger writes the per-deck rows, then the whole-collection
# row, then the deck totals: two transactions changing the same learner's cards lock the rows they share in the same
# order, so they wait for each other instead of deadlocking.
# A delta that only takes cards away never creates a row: that keeps a cascading delete (the learner's or the deck's
# count rows deleted before their cards) from leaving a row behind that points at a deleted learner or deck.


def _apply_user(delta: str, *, per_deck: bool) -> str:
    deck_match = "x.deck_id = d.deck_id" if per_deck else "x.deck_id IS NULL"
    target = "(user_id, deck_id) WHERE deck_id IS NOT NULL" if per_deck else "(user_id) WHERE deck_id IS NULL"
    nonzero = " OR ".join(f"d.{column} <> 0" for column in COUNT_COLUMNS)
    updates = ", ".join(f"{column} = {USER_DECK_COUNT}.{column} + excluded.{column}" for column in COUNT_COLUMNS)
    return (f"INSERT INTO {USER_DECK_COUNT} (user_id, deck_id, {', '.join(COUNT_COLUMNS)}) "
            f"SELECT d.user_id, d.deck_id, {', '.join(f'd.{column}' for column in COUNT_COLUMNS)} FROM ({delta}) d "
            f"WHERE ({nonzero}) AND (d.cards > 0 OR EXISTS (SELECT 1 FROM {USER_DECK_COUNT} x "
            f"WHERE x.user_id = d.user_id AND {deck_match})) ORDER BY d.user_id, d.deck_id "
            f"ON CONFLICT {target} DO UPDATE SET {updates}")


def _apply_deck(delta: str) -> str:
    return (f"INSERT INTO {DECK_CARD_COUNT} (deck_id, owner_id, cards) SELECT d.deck_id, d.owner_id, d.cards "
            f"FROM ({delta}) d WHERE d.cards <> 0 AND (d.cards > 0 OR EXISTS (SELECT 1 FROM {DECK_CARD_COUNT} x "
            "WHERE x.deck_id = d.deck_id AND x.owner_id = d.owner_id)) ORDER BY d.deck_id, d.owner_id "
            f"ON CONFLICT (deck_id, owner_id) DO UPDATE SET cards = {DECK_CARD_COUNT}.cards + excluded.cards")


def _user_card_statements(changes: str) -> list[str]:
    return [_apply_user(_user_card_delta(changes, per_deck=True), per_deck=True),
            _apply_user(_user_card_delta(changes, per_deck=False), per_deck=False)]


def _membership_statements(changes: str) -> list[str]:
    return [_apply_user(_membership_user_delta(changes), per_deck=True), _apply_deck(_membership_deck_delta(changes))]


def _card_statements(changes: str) -> list[str]:
    return [_apply_user(_card_user_delta(changes, per_deck=True), per_deck=True),
            _apply_user(_card_user_delta(changes, per_deck=False), per_deck=False),
            _apply_deck(_card_deck_delta(changes))]


# --- the triggers ----------------------------------------------------------------------------------------------

USER_CARD_COLUMNS = ("user_id", "card_id", "state", "suspended")
MEMBERSHIP_COLUMNS = ("card_id", "deck_id")
CARD_COLUMNS = ("id", "retired", "owner_id")
# table → (the columns its changes carry, how they are named in the changes, the statements applying them)
TABLES = {
    "flashcards_usercard": (USER_CARD_COLUMNS, USER_CARD_COLUMNS, _user_card_statements),
    "flashcards_card_decks": (MEMBERSHIP_COLUMNS, MEMBERSHIP_COLUMNS, _membership_statements),
    "flashcards_card": (CARD_COLUMNS, ("card_id", "retired", "owner_id"), _card_statements),
}


def _rows(source: str, columns, names, sign: int) -> str:
    return "SELECT " + ", ".join(f"{source}.{column} AS {name}" for column, name in zip(columns, names, strict=True)) + \
        f", {sign} AS sign"


def _changed(old: str, new: str, columns) -> str:
    return " OR ".join(f"{old}.{column} IS DISTINCT FROM {new}.{column}" for column in columns)


def _postgresql_triggers() -> list[tuple[str, str]]:
    """(name, CREATE statements) for each table and event: statement-level, with transition tables."""
    created = []
    for table, (columns, names, statements) in TABLES.items():
        watched = [column for column in columns if column != "id"]
        changes = {
            "INSERT": ("REFERENCING NEW TABLE AS new_rows", f"({_rows('n', columns, names, 1)} FROM new_rows n)"),
            "DELETE": ("REFERENCING OLD TABLE AS old_rows", f"({_rows('o', columns, names, -1)} FROM old_rows o)"),
            "UPDATE": ("REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
                       f"({_rows('o', columns, names, -1)} FROM old_rows o JOIN new_rows n ON n.id = o.id "
                       f"WHERE {_changed('o', 'n', watched)} UNION ALL {_rows('n', columns, names, 1)} "
                       f"FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE {_changed('o', 'n', watched)})"),
        }
        for event, (referencing, subquery) in changes.items():
            name = f"{table}_counts_{event.lower()}"
            body = ";\n  ".join(statements(subquery))
            created.append((name, f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                                  f"BEGIN\n  {body};\n  RETURN NULL;\nEND $$"))
            created.append((name, f"CREATE TRIGGER {name} AFTER {event} ON {table} {referencing} "
                                  f"FOR EACH STATEMENT EXECUTE FUNCTION {name}()"))
    return created


def _sqlite_triggers() -> list[tuple[str, str]]:
    created = []
    for table, (columns, names, statements) in TABLES.items():
        watched = [column for column in columns if column != "id"]
        new_row, old_row = f"({_rows('NEW', columns, names, 1)})", f"({_rows('OLD', columns, names, -1)})"
        changes = {
            "INSERT": ("", new_row),
            "DELETE": ("", old_row),
            "UPDATE": (f"OF {', '.join(watched)} ", f"({_rows('OLD', columns, names, -1)} UNION ALL "
                                                     f"{_rows('NEW', columns, names, 1)})"),
        }
        for event, (of, subquery) in changes.items():
            name = f"{table}_counts_{event.lower()}"
            when = f" WHEN {' OR '.join(f'OLD.{c} IS NOT NEW.{c}' for c in watched)}" if event == "UPDATE" else ""
            body = "".join(f"  {statement};\n" for statement in statements(subquery))
            created.append((name, f"CREATE TRIGGER {name} AFTER {event} {of}ON {table} FOR EACH ROW{when}\n"
                                  f"BEGIN\n{body}END;"))
    return created


def trigger_statements(vendor: str) -> list[str]:
    """The SQL that creates the count triggers on this database vendor: what migration 0012 holds, frozen."""
    if vendor not in ("postgresql", "sqlite"):
        raise NotImplementedError(f"deck counts need triggers written for {vendor}")
    return [sql for _, sql in (_postgresql_triggers() if vendor == "postgresql" else _sqlite_triggers())]


# --- each learner's card carries its card's decks (PostgreSQL) -----------------------------------------------------
# The per-request counts group the learner's due cards by deck. Looking up each due card's memberships costs an
# index probe per card (5,000 due cards of a 50,000-card collection: 10 ms); with the deck ids on the learner's card
# row, in the indexes the counts read, they cost nothing more. The column ``deck_ids`` (sorted, PostgreSQL only; the
# ORM does not know it, so no save() can write a stale copy back) is kept by the database: a row trigger fills it
# when a card enters a collection (or a row's card changes), a statement trigger on the membership table refreshes
# the rows of every learner holding a card whose decks changed. That trigger is named to fire before the counts'
# (triggers on one table fire in name order): it locks the learners' cards before their count rows, the order a
# review takes them in, so the two wait for each other instead of deadlocking. The two indexes the counts read
# (``usercard_learning_due``, ``usercard_state_due_id``) are rebuilt with the same keys and names, carrying the
# columns the counts need, so the counts read no table row. Migration 0013 holds all of it, frozen.

CARRIED_DECKS = ("ARRAY(SELECT m.deck_id FROM flashcards_card_decks m WHERE m.card_id = {card} "
                 "ORDER BY m.deck_id)")
# index name → (key, carried columns, condition) as the model declares them, plus what the counts read
CARRYING_INDEXES = {
    "usercard_state_due_id": ("user_id, state, due, id", "card_id, suspended, buried_until, deck_ids", ""),
    "usercard_learning_due": ("user_id, due, id", "card_id, state, buried_until, deck_ids",
                              " WHERE state IN (1, 3) AND NOT suspended"),
}


def carried_decks_statements() -> list[str]:
    """The SQL that adds the carried deck ids (PostgreSQL), then fills them: what migration 0013 holds, frozen."""
    statements = [
        "ALTER TABLE flashcards_usercard ADD COLUMN deck_ids bigint[] NOT NULL DEFAULT '{}'",
        "CREATE OR REPLACE FUNCTION flashcards_usercard_carry() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        f"BEGIN\n  NEW.deck_ids := {CARRIED_DECKS.format(card='NEW.card_id')};\n  RETURN NEW;\nEND $$",
        "CREATE TRIGGER flashcards_usercard_carry BEFORE INSERT OR UPDATE OF card_id ON flashcards_usercard "
        "FOR EACH ROW EXECUTE FUNCTION flashcards_usercard_carry()",
    ]
    refresh = ("UPDATE flashcards_usercard u SET deck_ids = " + CARRIED_DECKS.format(card="u.card_id") +
               " WHERE u.card_id IN ({changed})")
    changed = {"INSERT": ("REFERENCING NEW TABLE AS new_rows", "SELECT card_id FROM new_rows"),
               "DELETE": ("REFERENCING OLD TABLE AS old_rows", "SELECT card_id FROM old_rows"),
               "UPDATE": ("REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
                          "SELECT card_id FROM old_rows UNION SELECT card_id FROM new_rows")}
    for event, (referencing, cards) in changed.items():
        name = f"flashcards_card_decks_carry_{event.lower()}"
        statements += [f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                       f"BEGIN\n  {refresh.format(changed=cards)};\n  RETURN NULL;\nEND $$",
                       f"CREATE TRIGGER {name} AFTER {event} ON flashcards_card_decks {referencing} "
                       f"FOR EACH STATEMENT EXECUTE FUNCTION {name}()"]
    for name, (key, carried, condition) in CARRYING_INDEXES.items():
        statements += [f"DROP INDEX {name}",
                       f"CREATE INDEX {name} ON flashcards_usercard ({key}) INCLUDE ({carried}){condition}"]
    return [*statements, carry_statement()[0]]


def carry_statement(*, user_id: int | None = None) -> tuple[str, list]:
    """(SQL, params) that set every card's carried decks (one learner's, or everyone's) from the memberships."""
    decks = CARRIED_DECKS.format(card="u.card_id")
    where, params = (" AND u.user_id = %s", [user_id]) if user_id is not None else ("", [])
    return f"UPDATE flashcards_usercard u SET deck_ids = {decks} WHERE u.deck_ids <> {decks}{where}", params


def carried_decks(*, user) -> dict[int, list[int]]:
    """card id → the deck ids carried on the learner's card row (PostgreSQL), for comparisons with the memberships."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT card_id, deck_ids FROM flashcards_usercard WHERE user_id = %s", [user.pk])
        return dict(cursor.fetchall())


# --- recounting from scratch -------------------------------------------------------------------------------------


def recount_statements(*, user_id: int | None = None) -> list[tuple[str, list]]:
    """(SQL, params) that rebuild the stored counts from the cards themselves: one learner's (their UserDeckCount
    rows) or, with no learner, every learner's and every deck's."""
    where, params = (" WHERE user_id = %s", [user_id]) if user_id is not None else ("", [])
    every_card = (f"({_rows('u', USER_CARD_COLUMNS, USER_CARD_COLUMNS, 1)} FROM flashcards_usercard u"
                  f"{where.replace('user_id', 'u.user_id')})")
    statements = [(f"DELETE FROM {USER_DECK_COUNT}{where}", params)]
    statements += [(sql, params) for sql in _user_card_statements(every_card)]
    if user_id is None:
        every_membership = f"({_rows('m', MEMBERSHIP_COLUMNS, MEMBERSHIP_COLUMNS, 1)} FROM flashcards_card_decks m)"
        statements += [(f"DELETE FROM {DECK_CARD_COUNT}", []),
                       (_apply_deck(_membership_deck_delta(every_membership)), [])]
    return statements


def recount(*, user=None) -> None:
    """Rebuilds the stored counts (one learner's, or everything) from the cards: after a TRUNCATE, or to check them."""
    user_id = None if user is None else user.pk
    statements = recount_statements(user_id=user_id)
    if connection.vendor == "postgresql":
        statements.append(carry_statement(user_id=user_id))
    with transaction.atomic(), connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)


def stored_counts(*, user) -> dict:
    """deck id (None: the whole collection) → the stored counts, leaving out all-zero rows (for comparisons)."""
    return {row.pop("deck_id"): row for row in UserDeckCount.objects.filter(user=user).values("deck_id", *COUNT_COLUMNS)
            if any(row[column] for column in COUNT_COLUMNS)}


# --- per request ---------------------------------------------------------------------------------------------

EMPTY_DUE = {"learning": 0, "review": 0, "new_out": 0, "live_learning": 0, "live_review": 0, "live_buried_new": 0}
EMPTY_KEPT = dict.fromkeys(COUNT_COLUMNS, 0)


def request_counts(*, user, now: datetime, end: datetime) -> tuple[dict, dict, dict]:
    """One query: (deck id → stored counts, deck id → clock-dependent counts, deck id → cards the learner may see);
    deck id None stands for the whole collection in the first two.

    Clock-dependent counts: ``learning`` (learning/relearning due by now), ``review`` (review cards due before the
    day ends), ``new_out`` (new cards not suspended that today's queue leaves out: buried now or due after today),
    and for the deck list, which leaves retired cards out, the same over cards not retired (``live_buried_new``:
    new cards buried now, the deck list counting new cards whatever their due time). Suspended cards never count.
    The rows read are the learner's due cards and buried or later new cards, each set from its own index.
    """
    adapt = connection.ops.adapt_datetimefield_value
    at, day_end = adapt(now), adapt(end)
    buried = "(d.buried_until IS NOT NULL AND d.buried_until > %s)"
    # Each due card's decks: on PostgreSQL those its row carries (read from the index with the row's other columns),
    # the cards first summed per deck set (a chapter's cards share one: a few dozen sets for thousands of cards),
    # each set's sums then added to each of its decks; elsewhere each card's memberships from their table.
    carried = connection.vendor == "postgresql"
    columns = "card_id, state, buried_until" + (", deck_ids" if carried else "")
    sums = ("learning", "review", "new_out", "live_learning", "live_review", "live_buried_new")
    if carried:
        grouped = (f"SELECT deck_ids, {', '.join(f'SUM({name}) AS {name}' for name in sums)} FROM counted "
                   "GROUP BY deck_ids")
        decks_of = "CROSS JOIN unnest(g.deck_ids) AS m(deck_id)"
    else:
        grouped = f"SELECT card_id, {', '.join(sums)} FROM counted"
        decks_of = "JOIN flashcards_card_decks m ON m.card_id = g.card_id"
    totals = ", ".join(f"SUM(g.{name})" for name in sums)
    sql = f"""
        WITH due AS (
            SELECT {columns} FROM flashcards_usercard
             WHERE user_id = %s AND state IN (1, 3) AND suspended = %s AND due <= %s
            UNION ALL SELECT {columns} FROM flashcards_usercard
             WHERE user_id = %s AND state = 2 AND suspended = %s AND due < %s
            UNION ALL SELECT {columns} FROM flashcards_usercard
             WHERE user_id = %s AND state = 0 AND suspended = %s AND due >= %s
            UNION ALL SELECT {columns} FROM flashcards_usercard
             WHERE user_id = %s AND state = 0 AND suspended = %s AND due < %s AND buried_until > %s
        ), flagged AS (
            SELECT d.*,
                   CASE WHEN d.card_id IN (SELECT id FROM flashcards_card WHERE retired = %s) THEN 0 ELSE 1 END AS live,
                   CASE WHEN d.state IN (1, 3) AND NOT {buried} THEN 1 ELSE 0 END AS learning,
                   CASE WHEN d.state = 2 AND NOT {buried} THEN 1 ELSE 0 END AS review,
                   CASE WHEN d.state = 0 THEN 1 ELSE 0 END AS new_out,
                   CASE WHEN d.state = 0 AND {buried} THEN 1 ELSE 0 END AS buried_new
              FROM due d
        ), counted AS (
            SELECT f.*, f.learning * f.live AS live_learning, f.review * f.live AS live_review,
                   f.buried_new * f.live AS live_buried_new
              FROM flagged f
        ), grouped AS ({grouped})
        SELECT 1, m.deck_id, {totals} FROM grouped g {decks_of} GROUP BY m.deck_id
        UNION ALL
        SELECT 1, NULL, {totals} FROM grouped g
        UNION ALL
        SELECT 2, deck_id, cards, live, new_cards, live_new_cards, 0, 0 FROM {USER_DECK_COUNT} WHERE user_id = %s
        UNION ALL
        SELECT 3, deck_id, SUM(cards), 0, 0, 0, 0, 0 FROM {DECK_CARD_COUNT} WHERE owner_id IN (0, %s) GROUP BY deck_id
    """
    params = [user.pk, False, at, user.pk, False, day_end, user.pk, False, day_end, user.pk, False, day_end, at,
              True, at, at, at, user.pk, user.pk]
    due, kept, visible = {}, {}, {}
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for kind, deck_id, *values in cursor.fetchall():
            values = [int(value or 0) for value in values]
            if kind == 1:
                due[deck_id] = dict(zip(EMPTY_DUE, values, strict=True))
            elif kind == 2:
                kept[deck_id] = dict(zip(COUNT_COLUMNS, values[:4], strict=True))
            else:
                visible[deck_id] = values[0]
    return kept, due, visible
