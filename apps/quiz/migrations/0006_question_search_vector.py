import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations

from apps.core.search_vectors import GinIndexOnPostgres, stored_search_vector


class Migration(migrations.Migration):
    """A stored, GIN-indexed search vector for questions (prompt B, answer D), kept by a trigger."""

    dependencies = [("quiz", "0005_investigations_evidence_and_attempts")]

    operations = [
        migrations.AddField(
            model_name="question",
            name="search_vector",
            field=django.contrib.postgres.search.SearchVectorField(editable=False, null=True),
        ),
        GinIndexOnPostgres(
            model_name="question",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search_vector"], name="question_search_vector"),
        ),
        stored_search_vector("quiz_question", [("prompt", "B"), ("answer", "D")]),
    ]
