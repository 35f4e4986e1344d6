#!/usr/bin/env bash
# Sets everything up and starts the site on http://127.0.0.1:8000 with a Celery worker.
# Embedded default: SQLite in db.sqlite3 and Celery's filesystem transport in var/celery (no Redis needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=.venv/bin/python
$PY manage.py migrate --noinput -v 0
$PY manage.py load_content --if-changed
mkdir -p var/celery/queue var/celery/processed

.venv/bin/celery -A config worker --loglevel=WARNING --concurrency=2 >var/celery-worker.log 2>&1 &
WORKER=$!
trap 'kill $WORKER 2>/dev/null || true' EXIT INT TERM
echo "Celery worker started (pid $WORKER, log var/celery-worker.log)"
echo "Site: http://127.0.0.1:8000/  API docs: http://127.0.0.1:8000/api/docs/"
$PY manage.py runserver 127.0.0.1:8000 --noreload
