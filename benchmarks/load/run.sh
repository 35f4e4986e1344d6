#!/usr/bin/env bash
# Closed-loop load benchmark in production mode: gunicorn as scripts/prod.sh starts it (WEB_CONCURRENCY x 2 threads,
# DEBUG=false, PostgreSQL, Redis cache) on 127.0.0.1:$LOAD_PORT with the production throttles, LOAD_USERS prepared
# learners, then drive.py (stages of rising concurrency per scenario until throughput stops rising) and summarize.py.
# Everything it writes goes to $LOAD_OUT (var/load): results.json, the summary, gunicorn's logs.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${LOAD_PORT:-8099}"
OUT="${LOAD_OUT:-var/load}"
bash scripts/services.sh
mkdir -p "$OUT"

export DEBUG=false LOG_LEVEL=WARNING ALLOWED_HOSTS=127.0.0.1,localhost
export DATABASE_URL="${LOAD_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/llmkit_load}"
export REDIS_URL="${LOAD_REDIS_URL:-redis://127.0.0.1:6379/5}" CACHE_URL="${LOAD_CACHE_URL:-redis://127.0.0.1:6379/6}"
export SECURE_SSL_REDIRECT=false SESSION_COOKIE_SECURE=false CSRF_COOKIE_SECURE=false SECURE_HSTS_SECONDS=0
export SECRET_KEY="${SECRET_KEY:-load-test-secret-key-not-for-production-0123456789}"
# Production throttles (config/settings.py defaults): none of the THROTTLE_* overrides from the caller's shell.
unset THROTTLE_ANON THROTTLE_USER THROTTLE_LOGIN THROTTLE_LOGIN_ACCOUNT THROTTLE_SWEEPS
export LOAD_DATA="$OUT/load-data.json" LOAD_USERS="${LOAD_USERS:-300}"

if [[ "$DATABASE_URL" == postgres://postgres@127.0.0.1:5432/* ]]; then
  DB_NAME="${DATABASE_URL##*/}"
  psql -h 127.0.0.1 -U postgres -tc "SELECT 1 FROM pg_database WHERE datname='$DB_NAME'" | grep -q 1 \
    || createdb -h 127.0.0.1 -U postgres "$DB_NAME"
fi
# The throttle counters live in the cache: a fresh cache, so an earlier run's requests never count against this one.
redis-cli -u "$CACHE_URL" flushdb >/dev/null
PY=.venv/bin/python
$PY manage.py migrate --noinput -v 0
$PY manage.py load_content --if-changed >/dev/null
$PY manage.py collectstatic --noinput -v 0
$PY manage.py shell -v 0 -c "exec(open('benchmarks/load/prepare.py').read())"

export PROMETHEUS_MULTIPROC_DIR="$PWD/$OUT/prometheus" METRICS_ALLOWED_IPS=127.0.0.1,::1
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
.venv/bin/gunicorn config.wsgi:application --bind "127.0.0.1:$PORT" -c python:apps.core.gunicorn_conf \
  --workers "${WEB_CONCURRENCY:-4}" --threads 2 --timeout 60 --access-logfile "$OUT/access.log" \
  --error-logfile "$OUT/gunicorn.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/api/v1/ping/" >/dev/null && break; sleep 0.2; done

META=$(printf '{"started": "%s", "cpus": %s, "cpu": "%s", "gunicorn": "%sx2", "load_before": "%s"}' \
  "$(date -u +%FT%TZ)" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" \
  "${WEB_CONCURRENCY:-4}" "$(cut -d' ' -f1-3 /proc/loadavg)")
# Every further argument goes to drive.py (--stages, --seconds, --max-seconds, --scenarios ...).
$PY benchmarks/load/drive.py --port "$PORT" --data "$LOAD_DATA" --out "$OUT/results.json" --meta "$META" "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
$PY benchmarks/load/summarize.py "$OUT/results.json" | tee "$OUT/summary.txt"
