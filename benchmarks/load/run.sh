#!/usr/bin/env bash
# Load benchmark: production mode (gunicorn, DEBUG=false, PostgreSQL, Redis cache) on 127.0.0.1:$LOAD_PORT with the
# throttles raised out of the way, N prepared users with tokens and a deck, then locust stages of increasing user
# counts (each <= 30 s) for the learner mix, and the same for GET /api/v1/ping/ (the ceiling). Locust is installed on
# demand into benchmarks/load/.venv (gitignored) so the project's own requirements stay free of gevent.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${LOAD_PORT:-8099}"
STAGES="${LOAD_STAGES:-2 5 10 20 40 80}"
PING_STAGES="${LOAD_PING_STAGES:-20 40 80 120}"
PING_PER_USER_RPS="${LOAD_PING_PER_USER_RPS:-10}"
SECONDS_PER_STAGE="${LOAD_STAGE_SECONDS:-25}"
OUT="${LOAD_OUT:-var/load}"
LOCUST_VERSION=2.47.0
VENV=benchmarks/load/.venv

if [ ! -x "$VENV/bin/locust" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "locust==$LOCUST_VERSION"
fi
bash scripts/services.sh
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT/summary.jsonl"

export DEBUG=false LOG_LEVEL=WARNING ALLOWED_HOSTS=127.0.0.1,localhost
export DATABASE_URL="${LOAD_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/llmkit_load}"
export REDIS_URL="${LOAD_REDIS_URL:-redis://127.0.0.1:6379/5}" CACHE_URL="${LOAD_CACHE_URL:-redis://127.0.0.1:6379/6}"
export SECURE_SSL_REDIRECT=false SESSION_COOKIE_SECURE=false CSRF_COOKIE_SECURE=false SECURE_HSTS_SECONDS=0
export SECRET_KEY="${SECRET_KEY:-load-test-secret-key-not-for-production-0123456789}"
export THROTTLE_ANON=100000000/hour THROTTLE_USER=100000000/hour THROTTLE_LOGIN=100000000/hour
export THROTTLE_SWEEPS=100000000/hour
export LOAD_DATA="$OUT/load-data.json" LOAD_USERS="${LOAD_USERS:-150}"

if [[ "$DATABASE_URL" == postgres://postgres@127.0.0.1:5432/llmkit_load ]]; then
  psql -h 127.0.0.1 -U postgres -tc "SELECT 1 FROM pg_database WHERE datname='llmkit_load'" | grep -q 1 \
    || createdb -h 127.0.0.1 -U postgres llmkit_load
fi
PY=.venv/bin/python
$PY manage.py migrate --noinput -v 0
$PY manage.py load_content >/dev/null
$PY manage.py collectstatic --noinput -v 0
$PY manage.py shell -v 0 -c "exec(open('benchmarks/load/prepare.py').read())"

.venv/bin/gunicorn config.wsgi:application --bind "127.0.0.1:$PORT" --workers "${WEB_CONCURRENCY:-4}" --threads 2 \
  --timeout 60 --access-logfile "$OUT/access.log" --error-logfile "$OUT/gunicorn.log" &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$PORT/api/v1/ping/" >/dev/null && break; sleep 0.2; done

echo "$(date -u +%FT%TZ) on $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), \
gunicorn ${WEB_CONCURRENCY:-4}x2, $LOAD_USERS prepared users, ${SECONDS_PER_STAGE}s per stage, \
load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

stage() {  # label, user class, users, per-user rate
  LOAD_PER_USER_RPS="$4" "$VENV/bin/locust" -f benchmarks/load/locustfile.py "$2" --headless -u "$3" -r "$3" \
    -t "${SECONDS_PER_STAGE}s" --host "http://127.0.0.1:$PORT" --csv "$OUT/$1-$3" --only-summary -L ERROR \
    >"$OUT/$1-$3.log" 2>&1 || true
  "$VENV/bin/python" benchmarks/load/summarize.py "$OUT/$1-$3" "$1" "$3"
}

# Warm-up (not reported): every gunicorn worker imports and connects before the first measured stage.
LOAD_PER_USER_RPS=2 "$VENV/bin/locust" -f benchmarks/load/locustfile.py Learner PingUser --headless -u 8 -r 8 -t 8s \
  --host "http://127.0.0.1:$PORT" --only-summary -L ERROR >"$OUT/warmup.log" 2>&1 || true

run_stages() {  # label, user class, per-user rate, user counts...: stop after two failing stages in a row
  local label=$1 class=$2 rate=$3 failures=0
  shift 3
  for users in "$@"; do
    if stage "$label" "$class" "$users" "$rate"; then failures=0; else failures=$((failures + 1)); fi
    [ "$failures" -ge 2 ] && break
  done
  return 0
}
# shellcheck disable=SC2086
run_stages learners Learner 1 $STAGES
# shellcheck disable=SC2086
run_stages ping PingUser "$PING_PER_USER_RPS" $PING_STAGES
"$VENV/bin/python" benchmarks/load/summarize.py --report "$OUT"
