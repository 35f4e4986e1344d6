import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations

from apps.core.search_vectors import GinIndexOnPostgres, stored_search_vector


class Migration(migrations.Migration):
    """A stored, GIN-indexed search vector for chapters (title A, summary B, body C), kept by a trigger."""

    dependencies = [("courses", "0006_archived_status_protect_progress")]

    operations = [
        migrations.AddField(
            model_name="chapter",
            name="search_vector",
            field=django.contrib.postgres.search.SearchVectorField(editable=False, null=True),
        ),
        GinIndexOnPostgres(
            model_name="chapter",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search_vector"], name="chapter_search_vector"),
        ),
        stored_search_vector("courses_chapter", [("title", "A"), ("summary", "B"), ("body", "C")]),
    ]
