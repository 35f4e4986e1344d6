from django.db import migrations

from apps.flashcards import deck_counts


def install(apps, schema_editor):
    """Each learner's card carries its card's deck ids, kept by triggers, in the indexes the deck counts read."""
    deck_counts.install_carried_decks(schema_editor)


def uninstall(apps, schema_editor):
    deck_counts.drop_carried_decks(schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ('flashcards', '0012_deck_counts'),
    ]

    operations = [
        migrations.RunPython(install, uninstall),
    ]
