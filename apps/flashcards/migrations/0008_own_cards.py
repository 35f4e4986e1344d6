import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("flashcards", "0007_deck_option_presets"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="card",
            name="source_type",
            field=models.CharField(choices=[("question", "Question"), ("term", "Glossary term"),
                                            ("number", "Number to memorize"), ("own", "Your own card")], max_length=10),
        ),
        migrations.AddField(
            model_name="card",
            name="owner",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                                    related_name="own_cards", to=settings.AUTH_USER_MODEL,
                                    help_text="The learner who wrote this card (source: their OwnNote); null: made "
                                              "from content. Nobody else sees it."),
        ),
        migrations.CreateModel(
            name="OwnNote",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("kind", models.CharField(help_text="basic or cloze", max_length=10)),
                ("front", models.TextField()),
                ("back", models.TextField(blank=True)),
                ("anki_card_id", models.BigIntegerField(blank=True, null=True,
                                                        help_text="The card's id in the Anki package it was imported from")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="own_notes",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("user", "anki_card_id"), name="anki_card_imported_once")],
            },
        ),
    ]
