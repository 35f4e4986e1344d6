#!/usr/bin/env bash
# Regenerates the web client's API types (frontend/src/generated/api.ts) from the OpenAPI schema the server serves.
# The test suite fails while the committed file differs from what this writes.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p var
# Integer ranges in the schema come from the database backend's limits: generate against one backend always.
DATABASE_URL="sqlite:///:memory:" .venv/bin/python manage.py spectacular --file var/openapi.yaml
# --enum-values: every enum also as a const array (dtypeEnumValues, ...), so option lists come from the schema.
# tests/architecture/test_api_types.py runs the generator with the same flags.
(cd frontend && node_modules/.bin/openapi-typescript ../var/openapi.yaml --enum-values -o src/generated/api.ts)
