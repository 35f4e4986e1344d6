"""Creates N load-test learners with API tokens and a deck in their collection; writes what drive.py needs.

Run with the server's environment: .venv/bin/python manage.py shell -c "exec(open('benchmarks/load/prepare.py').read())"
The learners sign in with their tokens only, so their passwords are hashed with a fast hasher here (the default
hasher would spend about half a second of CPU per account).
"""

import json
import os

from django.contrib.auth import get_user_model
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token

from apps.accounts.services import register_user
from apps.courses.models import Chapter
from apps.flashcards.models import Deck, UserCard
from apps.flashcards.services import deck_add, settings_update
from apps.glossary.models import Term

count = int(os.environ.get("LOAD_USERS", "300"))
deck = Deck.objects.filter(kind="part").order_by("order").first() or Deck.objects.order_by("order").first()
User = get_user_model()
learners = []
with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
    for n in range(count):
        name = f"load{n:04d}"
        user = User.objects.filter(username=name).first() or register_user(name, "load-test-password-9")
        if not UserCard.objects.filter(user=user).exists():
            settings_update(user=user, new_cards_per_day=9999, max_reviews_per_day=99999)
            deck_add(user=user, slug=deck.slug, now=timezone.now())
        cards = list(UserCard.objects.filter(user=user).values_list("card_id", flat=True)[:50])
        learners.append({"token": Token.objects.get_or_create(user=user)[0].key, "cards": cards})
terms = Term.objects.published()
data = {
    "learners": learners,
    "chapters": list(Chapter.objects.published().values_list("slug", flat=True)),
    "terms": list(terms.values_list("slug", flat=True)),
    "search_words": list(terms.values_list("term", flat=True)),
}
# Planner statistics for the rows just written, as autovacuum keeps them in production: without them PostgreSQL
# guesses one row per table and picks nested loops that cost the due queue's source links 3 ms instead of 0.3.
with connection.cursor() as cursor:
    cursor.execute("ANALYZE")
with open(os.environ.get("LOAD_DATA", "var/load/load-data.json"), "w") as handle:
    json.dump(data, handle)
print(f"prepared {count} learners, deck {deck.slug} ({deck.cards.count()} cards), {len(data['chapters'])} chapters, "
      f"{len(data['terms'])} terms")
