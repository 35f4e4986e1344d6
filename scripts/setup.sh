#!/usr/bin/env bash
# Idempotent set-up: virtualenv, Python and npm dependencies, front-end build. Quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp_ok() { [ -f "$1" ] && [ "$1" -nt "$2" ]; }

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! stamp_ok .venv/.installed requirements.txt; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
  touch .venv/.installed
fi

if ! stamp_ok frontend/node_modules/.installed frontend/package-lock.json; then
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  touch frontend/node_modules/.installed
fi
# Rebuild the front end only when a source file is newer than the build.
if [ ! -f frontend/dist/index.html ] || [ -n "$(find frontend/src frontend/index.html frontend/package.json frontend/vite.config.ts -newer frontend/dist/index.html -print -quit)" ]; then
  (cd frontend && npm run --silent build >/dev/null)
fi
.venv/bin/python manage.py collectstatic --noinput -v 0
