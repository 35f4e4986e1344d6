#!/usr/bin/env bash
# Production mode on this machine: gunicorn serving the built front end through whitenoise, Celery workers (two for
# sweeps, one of them running beat for the sweep watchdog, one for FSRS optimisation, each restarted when it dies),
# PostgreSQL and a Redis with append-only persistence — configured only by environment variables (defaults below
# point at the local services). Plain HTTP on 127.0.0.1, so secure cookies and the SSL redirect are off unless you set them; behind a
# TLS-terminating proxy leave them on (the Django defaults when DEBUG=false).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/services.sh
mkdir -p var

export DEBUG=false
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/llmkit}"
# The broker keeps queued work across a restart: unless REDIS_URL is given, a private Redis on PROD_REDIS_PORT with
# append-only persistence (fsync every second) in var/redis, started if it is not answering.
if [ -z "${REDIS_URL:-}" ]; then
  PROD_REDIS_PORT="${PROD_REDIS_PORT:-6380}"
  if ! redis-cli -h 127.0.0.1 -p "$PROD_REDIS_PORT" ping >/dev/null 2>&1; then
    mkdir -p var/redis
    redis-server --daemonize yes --bind 127.0.0.1 --port "$PROD_REDIS_PORT" --dir "$PWD/var/redis" \
      --appendonly yes --appendfsync everysec --save "" \
      --pidfile "$PWD/var/redis/redis.pid" --logfile "$PWD/var/redis/redis.log"
    for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p "$PROD_REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.2; done
  fi
  export REDIS_URL="redis://127.0.0.1:$PROD_REDIS_PORT/1"
  export CACHE_URL="${CACHE_URL:-redis://127.0.0.1:$PROD_REDIS_PORT/2}"
fi
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
# Only when fixtures/ changed since the last load (a fingerprint kept in the database): a restart never rewrites
# what authors changed in the admin or API, and a load touches only items the files own.
$PY manage.py load_content --if-changed
$PY manage.py collectstatic --noinput -v 0
# What this deployment must decide (proxy count, metrics access, secure cookies) is printed here; errors stop it.
$PY manage.py check --deploy --fail-level ERROR

# Each worker runs under a restart loop: one that dies (killed, out of memory) is started again in 2 s, and the
# tasks it held come back through the broker (acks late, 90 s visibility timeout) or the sweep watchdog.
supervise() {
  local name=$1 child=""
  shift
  trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 0' TERM INT
  while true; do
    "$@" >>"var/celery-$name.log" 2>&1 &
    child=$!
    rc=0; wait "$child" || rc=$?
    echo "$(date -Is) worker $name exited with status $rc; restarting in 2 s" >>"var/celery-$name.log"
    sleep 2
  done
}
CELERY=(.venv/bin/celery -A config worker --concurrency=1 --loglevel=INFO)
SWEEPS_Q="${CELERY_TASK_DEFAULT_QUEUE:-celery}"
OPTIMIZE_Q="${CELERY_OPTIMIZE_QUEUE:-optimize}"
SUPERVISORS=()
supervise w1 "${CELERY[@]}" -n "w1@%h" -Q "$SWEEPS_Q" -B -s var/celerybeat-schedule &  # beat: the sweep watchdog
SUPERVISORS+=($!)
supervise w2 "${CELERY[@]}" -n "w2@%h" -Q "$SWEEPS_Q" &
SUPERVISORS+=($!)
supervise optimize "${CELERY[@]}" -n "optimize@%h" -Q "$OPTIMIZE_Q" &
SUPERVISORS+=($!)
stop_workers() { kill -TERM "${SUPERVISORS[@]}" 2>/dev/null || true; wait "${SUPERVISORS[@]}" 2>/dev/null || true; }
echo "Celery workers under restart loops: w1 (with beat), w2 on $SWEEPS_Q, optimize on $OPTIMIZE_Q (logs var/celery-*.log)"
echo "Serving http://127.0.0.1:${PORT:-8000}/ (metrics at /metrics)"
# Metrics from every gunicorn worker, summed at each scrape (a fresh folder per start). Scrape /metrics from
# this machine, or set METRICS_TOKEN (Authorization: Bearer ...) or METRICS_ALLOWED_IPS.
export METRICS_ALLOWED_IPS="${METRICS_ALLOWED_IPS:-127.0.0.1,::1}"
PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$PWD/var/prometheus}"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
export PROMETHEUS_MULTIPROC_DIR
.venv/bin/gunicorn config.wsgi:application --bind "127.0.0.1:${PORT:-8000}" -c python:apps.core.gunicorn_conf \
  --workers "${WEB_CONCURRENCY:-4}" --threads 2 --access-logfile - --timeout 60 &
GUNICORN=$!
echo "$GUNICORN" > var/gunicorn.pid
# kill -HUP this script (or the pid in var/gunicorn.pid) for gunicorn's graceful reload; INT/TERM stop everything.
trap 'kill -HUP "$GUNICORN"' HUP
trap 'kill -TERM "$GUNICORN" 2>/dev/null || true' INT TERM
trap stop_workers EXIT
while kill -0 "$GUNICORN" 2>/dev/null; do wait "$GUNICORN" || true; done
