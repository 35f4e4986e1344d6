import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations

from apps.core.search_vectors import GinIndexOnPostgres, stored_search_vector


class Migration(migrations.Migration):
    """A stored, GIN-indexed search vector for terms (name and aliases A, definition B, explanation C)."""

    dependencies = [("glossary", "0003_archived_status")]

    operations = [
        migrations.AddField(
            model_name="term",
            name="search_vector",
            field=django.contrib.postgres.search.SearchVectorField(editable=False, null=True),
        ),
        GinIndexOnPostgres(
            model_name="term",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search_vector"], name="term_search_vector"),
        ),
        stored_search_vector("glossary_term", [("term", "A"), ("aliases::text", "A"), ("definition", "B"), ("explanation", "C")]),
    ]
