from django.db import migrations, models
from django.db.models import F


def all_sent(apps, schema_editor):
    """Jobs created before windowed dispatch had every chunk sent at once."""
    apps.get_model("simulators", "SweepJob").objects.update(dispatched_chunks=F("total_chunks"))


class Migration(migrations.Migration):
    dependencies = [("simulators", "0003_catalog_slugs_with_dots")]

    operations = [
        migrations.AddField("sweepjob", "chunk_points", models.PositiveIntegerField(
            default=0, help_text="Points per chunk (0: the grid's default size)")),
        migrations.AddField("sweepjob", "dispatched_chunks", models.PositiveIntegerField(
            default=0, help_text="Chunks sent to the queue so far; chunks go out a few at a time per user (fairness)")),
        migrations.AddField("sweepjob", "requeues", models.PositiveIntegerField(
            default=0, help_text="Re-sends of lost chunks since the last progress")),
        migrations.AddField("sweepjob", "cost_estimate_s", models.FloatField(
            default=0, help_text="Estimated worker CPU seconds, checked against budgets")),
        migrations.RunPython(all_sent, migrations.RunPython.noop),
    ]
