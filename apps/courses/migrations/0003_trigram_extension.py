from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations


class Migration(migrations.Migration):
    """pg_trgm for typo-tolerant search; Django's CreateExtension does nothing on other databases (SQLite)."""

    dependencies = [("courses", "0002_initial")]

    operations = [TrigramExtension()]
