#!/usr/bin/env bash
# The quick benchmarks (seconds each). The load, flashcards and sweeps benchmarks take minutes: see benchmarks/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python benchmarks/bench_modeling.py
.venv/bin/python benchmarks/bench_engine.py
.venv/bin/python benchmarks/bench_simulator_api.py
