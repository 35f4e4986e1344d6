"""Creates N load-test users with API tokens and a deck in their collection; writes what the locustfile needs.

Run with the server's environment: .venv/bin/python manage.py shell -c "exec(open('benchmarks/load/prepare.py').read())"
"""

import json
import os

from django.contrib.auth import get_user_model
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
tokens = []
for n in range(count):
    name = f"load{n:04d}"
    user = User.objects.filter(username=name).first() or register_user(name, "load-test-password-9")
    if not UserCard.objects.filter(user=user).exists():
        settings_update(user=user, new_cards_per_day=9999, max_reviews_per_day=99999)
        deck_add(user=user, slug=deck.slug, now=timezone.now())
    tokens.append(Token.objects.get_or_create(user=user)[0].key)
data = {
    "tokens": tokens[1:],
    "spare_token": tokens[0],
    "chapters": list(Chapter.objects.published().values_list("slug", flat=True)),
    "terms": list(Term.objects.published().values_list("slug", flat=True)),
    "deck": deck.slug,
}
with open(os.environ.get("LOAD_DATA", "var/load-data.json"), "w") as handle:
    json.dump(data, handle)
print(f"prepared {count} users, deck {deck.slug} ({deck.cards.count()} cards), {len(data['chapters'])} chapters")
