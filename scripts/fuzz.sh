#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) with cargo-fuzz on the nightly toolchain, and prints
# the executions per target. Without a nightly toolchain or cargo-fuzz it says so and exits cleanly.
# Usage: bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "[fuzz] no nightly toolchain on this machine: fuzzing skipped"
  exit 0
fi
if ! command -v cargo-fuzz >/dev/null; then
  echo "[fuzz] cargo-fuzz is not installed (cargo install cargo-fuzz): fuzzing skipped"
  exit 0
fi
for target in $(cargo +nightly fuzz list --fuzz-dir fuzz); do
  mkdir -p "fuzz/corpus/$target"
  log=$(mktemp)
  if ! cargo +nightly fuzz run --fuzz-dir fuzz "$target" "fuzz/corpus/$target" -- \
      -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "[fuzz] $target FAILED (crash input kept under fuzz/artifacts/$target)"
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  echo "[fuzz] $target: $runs executions in ${seconds}s, no crash"
  rm -f "$log"
done
