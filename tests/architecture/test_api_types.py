"""The web client's API types are generated from the schema, so a changed response breaks the front end's type
check (run by the test command's build) instead of a learner's page. Regenerate with `make api-types`."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "frontend" / "node_modules" / ".bin" / "openapi-typescript"


def test_committed_api_types_match_the_schema(tmp_path):
    schema, types = tmp_path / "openapi.yaml", tmp_path / "api.ts"
    env = {**os.environ, "DATABASE_URL": "sqlite:///:memory:"}  # as scripts/api-types.sh: one backend's int ranges
    subprocess.run([sys.executable, "manage.py", "spectacular", "--file", str(schema)], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=120)
    # the flags of scripts/api-types.sh (--enum-values: the enums' values as const arrays the client's options use)
    subprocess.run([str(GENERATOR), str(schema), "--enum-values", "-o", str(types)], cwd=ROOT / "frontend", check=True,
                   capture_output=True, timeout=120)
    committed = (ROOT / "frontend" / "src" / "generated" / "api.ts").read_text(encoding="utf-8")
    assert types.read_text(encoding="utf-8") == committed, "the API changed: run `make api-types` and commit"
