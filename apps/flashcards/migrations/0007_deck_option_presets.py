import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import apps.flashcards.models


class Migration(migrations.Migration):

    dependencies = [
        ("flashcards", "0006_review_flag_note_daily_goal"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="DeckPreset",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=80)),
                ("new_cards_per_day", models.PositiveIntegerField(default=20)),
                ("max_reviews_per_day", models.PositiveIntegerField(default=200)),
                ("desired_retention", models.FloatField(default=0.9)),
                ("learning_steps", models.JSONField(default=apps.flashcards.models.default_steps_learning,
                                                    help_text="Minutes")),
                ("relearning_steps", models.JSONField(default=apps.flashcards.models.default_steps_relearning,
                                                      help_text="Minutes")),
                ("parameters", models.JSONField(blank=True, default=list,
                                                help_text="21 FSRS-6 weights; empty = the Default's")),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="deck_presets",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "ordering": ["name", "id"],
                "constraints": [models.UniqueConstraint(fields=("user", "name"), name="deck_preset_name_once_per_user")],
            },
        ),
        migrations.CreateModel(
            name="DeckPresetAssignment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("deck", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                           to="flashcards.deck")),
                ("preset", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="assignments",
                                             to="flashcards.deckpreset")),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("user", "deck"), name="one_preset_per_deck_and_user")],
            },
        ),
        migrations.AddField(
            model_name="optimizationjob",
            name="preset",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                    to="flashcards.deckpreset",
                                    help_text="Fit to the reviews of this preset's cards; none: the Default preset's"),
        ),
    ]
