from django.core.management.base import BaseCommand, CommandError

from apps.core.content import ContentInvalid, load_all, load_needed


class Command(BaseCommand):
    help = "Load every content file in fixtures/ (idempotent; all or nothing, every error with file and line)."

    def add_arguments(self, parser):
        parser.add_argument("--root", help="Content folder (default: fixtures/)")
        parser.add_argument(
            "--if-changed", action="store_true",
            help="Do nothing when the files are byte-for-byte those of the last successful load (make prod uses it, "
                 "so a restart never rewrites what authors changed in the admin since)",
        )

    def handle(self, *args, **options):
        if options["if_changed"] and not load_needed(options.get("root")):
            if options["verbosity"]:
                self.stdout.write("Content files unchanged since the last load; nothing loaded.")
            return
        try:
            counts = load_all(options.get("root"))
        except ContentInvalid as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(exc.errors)} content error(s); nothing was changed.")
        summary = ", ".join(f"{count} {kind}" for kind, count in counts.items())
        if options["verbosity"]:
            self.stdout.write(f"Loaded {summary}.")
