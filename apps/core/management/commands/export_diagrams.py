"""Writes the live-diagram registry (apps.core.diagrams.DIAGRAMS) for the web client, so both read one list."""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.core.diagrams import diagrams_document

TARGET = Path(settings.BASE_DIR) / "frontend" / "src" / "generated" / "diagrams.json"


def diagrams_json() -> str:
    return json.dumps(diagrams_document(), indent=2, ensure_ascii=False) + "\n"


class Command(BaseCommand):
    help = "Write frontend/src/generated/diagrams.json from the diagram registry."

    def handle(self, *args, **options):
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        TARGET.write_text(diagrams_json(), encoding="utf-8")
        self.stdout.write(f"wrote {TARGET.relative_to(settings.BASE_DIR)}")
