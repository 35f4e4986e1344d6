#!/usr/bin/env bash
# Production mode on this machine: gunicorn serving the built front end through whitenoise, two Celery worker
# processes, PostgreSQL and Redis — configured only by environment variables (defaults below point at the local
# services). Plain HTTP on 127.0.0.1, so secure cookies and the SSL redirect are off unless you set them; behind a
# TLS-terminating proxy leave them on (the Django defaults when DEBUG=false).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/services.sh
mkdir -p var

export DEBUG=false
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/llmkit}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/1}"
export CACHE_URL="${CACHE_URL:-redis://127.0.0.1:6379/2}"
export ALLOWED_HOSTS="${ALLOWED_HOSTS:-127.0.0.1,localhost}"
export SECURE_SSL_REDIRECT="${SECURE_SSL_REDIRECT:-false}"
export SESSION_COOKIE_SECURE="${SESSION_COOKIE_SECURE:-false}"
export CSRF_COOKIE_SECURE="${CSRF_COOKIE_SECURE:-false}"
export SECURE_HSTS_SECONDS="${SECURE_HSTS_SECONDS:-0}"
if [ -z "${SECRET_KEY:-}" ]; then
  [ -f var/prod-secret-key ] || .venv/bin/python -c "import secrets; print(secrets.token_urlsafe(50))" > var/prod-secret-key
  SECRET_KEY="$(cat var/prod-secret-key)"
  export SECRET_KEY
fi

if [[ "$DATABASE_URL" == postgres://postgres@127.0.0.1:5432/llmkit ]]; then
  psql -h 127.0.0.1 -U postgres -tc "SELECT 1 FROM pg_database WHERE datname='llmkit'" | grep -q 1 \
    || createdb -h 127.0.0.1 -U postgres llmkit
fi
PY=.venv/bin/python
$PY manage.py migrate --noinput -v 0
$PY manage.py load_content
$PY manage.py collectstatic --noinput -v 0

WORKERS=()
for name in w1 w2; do
  .venv/bin/celery -A config worker -n "$name@%h" --concurrency=1 --loglevel=INFO >"var/celery-$name.log" 2>&1 &
  WORKERS+=($!)
done
trap 'kill "${WORKERS[@]}" 2>/dev/null || true' EXIT INT TERM
echo "Celery workers: ${WORKERS[*]} (logs var/celery-w*.log)"
echo "Serving http://127.0.0.1:${PORT:-8000}/ (metrics at /metrics)"
# Metrics from every gunicorn worker, summed at each scrape (a fresh folder per start). Scrape /metrics from
# this machine, or set METRICS_TOKEN (Authorization: Bearer ...) or METRICS_ALLOWED_IPS.
export METRICS_ALLOWED_IPS="${METRICS_ALLOWED_IPS:-127.0.0.1,::1}"
PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$PWD/var/prometheus}"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
export PROMETHEUS_MULTIPROC_DIR
exec .venv/bin/gunicorn config.wsgi:application --bind "127.0.0.1:${PORT:-8000}" -c python:apps.core.gunicorn_conf \
  --workers "${WEB_CONCURRENCY:-4}" --threads 2 --access-logfile - --timeout 60
