from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("flashcards", "0009_card_images"),
    ]

    operations = [
        migrations.AddField(
            model_name="ownnote",
            name="anki_deck",
            field=models.TextField(blank=True, default="",
                                   help_text="The full name of the Anki deck it was imported from (levels joined by ::)"),
        ),
    ]
