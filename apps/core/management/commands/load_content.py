from django.core.management.base import BaseCommand, CommandError

from apps.core.content import ContentInvalid, load_all


class Command(BaseCommand):
    help = "Load every content file in fixtures/ (idempotent; all or nothing, every error with file and line)."

    def add_arguments(self, parser):
        parser.add_argument("--root", help="Content folder (default: fixtures/)")

    def handle(self, *args, **options):
        try:
            counts = load_all(options.get("root"))
        except ContentInvalid as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(exc.errors)} content error(s); nothing was changed.")
        summary = ", ".join(f"{count} {kind}" for kind, count in counts.items())
        if options["verbosity"]:
            self.stdout.write(f"Loaded {summary}.")
