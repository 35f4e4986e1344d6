"""Writes the Lab's page list (apps.core.registry) for the web client, so both read one list."""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.core.registry import lab_pages_document

TARGET = Path(settings.BASE_DIR) / "frontend" / "src" / "generated" / "lab-pages.json"


def lab_pages_json() -> str:
    return json.dumps(lab_pages_document(), indent=2, ensure_ascii=False) + "\n"


class Command(BaseCommand):
    help = "Write frontend/src/generated/lab-pages.json from the Lab page registry."

    def handle(self, *args, **options):
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        TARGET.write_text(lab_pages_json(), encoding="utf-8")
        self.stdout.write(f"wrote {TARGET.relative_to(settings.BASE_DIR)}")
