from pathlib import Path

from django.core.management.base import BaseCommand

from apps.core.content import FIXTURES_DIR
from apps.core.content_export import export_all


class Command(BaseCommand):
    help = "Write the content in the database to the fixtures/ text format (the inverse of load_content)."

    def add_arguments(self, parser):
        parser.add_argument("--out", default=str(FIXTURES_DIR), help="Output folder (default: fixtures/)")

    def handle(self, *args, **options):
        written = export_all(Path(options["out"]))
        if options["verbosity"]:
            self.stdout.write(f"Wrote {len(written)} files to {options['out']}.")
