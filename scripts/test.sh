#!/usr/bin/env bash
# Installs what the tests need and runs every test: ruff, the import-layer contracts, mypy (the pure maths and the
# services, with the Django plugin), the
# front-end type check and build, then pytest
# (unit, API, Celery with real workers on Redis, schemathesis, and Chromium browser tests) on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  echo "Installing Debian's chromium for the browser tests..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
fi
bash scripts/setup.sh
bash scripts/services.sh

.venv/bin/ruff check .
.venv/bin/lint-imports --no-cache
.venv/bin/mypy
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
export DJANGO_ALLOW_ASYNC_UNSAFE=true
exec .venv/bin/python -m pytest -n 2 --dist loadgroup "$@"
