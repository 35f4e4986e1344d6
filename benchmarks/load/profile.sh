#!/usr/bin/env bash
# Where the server's time goes under load: run.sh drives one scenario at one concurrency while py-spy samples every
# gunicorn worker, twice (wall clock of the busy threads, then only the thread holding the GIL, i.e. Python CPU);
# profile_top.py prints the heaviest frames of each. Usage:
#   bash benchmarks/load/profile.sh chapter [concurrency=8] [seconds=12]
# Writes $LOAD_OUT/profile-<scenario>-{wall,gil}.txt (collapsed stacks) next to run.sh's results.
set -euo pipefail
cd "$(dirname "$0")/../.."
SCENARIO="${1:?scenario, e.g. chapter}" CONC="${2:-8}" SECONDS_EACH="${3:-12}"
OUT="${LOAD_OUT:-var/load}"
PORT="${LOAD_PORT:-8099}"
mkdir -p "$OUT"
LOAD_OUT="$OUT" bash benchmarks/load/run.sh --scenarios "$SCENARIO" --stages "$CONC" --warmup 5 \
  --seconds $((2 * SECONDS_EACH + 10)) --max-seconds $((2 * SECONDS_EACH + 10)) > "$OUT/profile-run.log" 2>&1 &
RUN=$!
for _ in $(seq 1 300); do  # the server answers once run.sh has migrated, loaded and prepared
  curl -fs "http://127.0.0.1:$PORT/api/v1/ping/" >/dev/null 2>&1 && break; sleep 1
done
MASTER=$(pgrep -f "gunicorn config.wsgi:application --bind 127.0.0.1:$PORT" | head -1)
sleep 12  # past preparation and the stage's warm-up
for mode in wall gil; do
  flag=""; [[ $mode == gil ]] && flag="--gil"
  .venv/bin/py-spy record --pid "$MASTER" --subprocesses --nonblocking --rate 250 $flag \
    --duration "$SECONDS_EACH" --format raw -o "$OUT/profile-$SCENARIO-$mode.txt" >/dev/null
done
wait "$RUN" || true
grep -E "c=$CONC" "$OUT/profile-run.log" || true
for mode in wall gil; do
  echo "== $SCENARIO, $mode =="
  .venv/bin/python benchmarks/load/profile_top.py "$OUT/profile-$SCENARIO-$mode.txt"
done
