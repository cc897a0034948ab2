#!/usr/bin/env bash
# Runs every fuzz target with cargo-fuzz on the pinned nightly toolchain (scripts/release-wasm.sh) and prints
# the executions per target. Without that toolchain or cargo-fuzz it says so and exits cleanly.
# Usage: bash scripts/fuzz.sh [SECONDS]        each target for SECONDS (default 60)
#        bash scripts/fuzz.sh --runs COUNT     each target for COUNT executions (for example 10000000)
# JOBS=N runs N targets at a time (default: the number of cores).
# SANITIZER=none (default: address) trades AddressSanitizer for about three times the executions; the crate
# forbids unsafe code, so long runs use it and the smoke keeps the default.
# A crash stops the run; libFuzzer keeps the input under fuzz/artifacts/<target>/. Copy it into
# fuzz/regressions/<target>/ (checked in): every run, the smoke in `npm test` included, replays those inputs first.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--runs" ]]; then
  limit=(-runs="${2:?--runs needs a count}")
  budget="${2} runs"
else
  limit=(-max_total_time="${1:-60}")
  budget="${1:-60}s"
fi
# shellcheck source=scripts/release-wasm.sh
source scripts/release-wasm.sh
if ! rustup toolchain list | grep -q "^$RELEASE_TOOLCHAIN"; then
  echo "[fuzz] no $RELEASE_TOOLCHAIN toolchain on this machine (scripts/setup.sh installs it): fuzzing skipped"
  exit 0
fi
if ! command -v cargo-fuzz >/dev/null; then
  echo "[fuzz] cargo-fuzz is not installed (cargo install cargo-fuzz): fuzzing skipped"
  exit 0
fi
# Built once for every target, then the targets run side by side (JOBS at a time, default: the cores).
cargo "+$RELEASE_TOOLCHAIN" fuzz build --sanitizer "${SANITIZER:-address}" --fuzz-dir fuzz
jobs=${JOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# run_target TARGET: one target for the budget; its summary (or its failure's tail) in $logs/TARGET.summary.
run_target() {
  local target=$1 log="$logs/$1.log" started
  mkdir -p "fuzz/corpus/$target" "fuzz/regressions/$target"
  started=$(date +%s)
  if ! cargo "+$RELEASE_TOOLCHAIN" fuzz run --sanitizer "${SANITIZER:-address}" --fuzz-dir fuzz "$target" "fuzz/corpus/$target" "fuzz/regressions/$target" -- \
      "${limit[@]}" -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
    { tail -n 40 "$log"; echo "[fuzz] $target FAILED (crash input kept under fuzz/artifacts/$target)"; } >"$logs/$target.summary"
    return 1
  fi
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  echo "[fuzz] $target: $runs executions in $(( $(date +%s) - started ))s (budget $budget), no crash" >"$logs/$target.summary"
}

targets=$(cargo "+$RELEASE_TOOLCHAIN" fuzz list --fuzz-dir fuzz)
failed=0
running=0
for target in $targets; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_target "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
for target in $targets; do cat "$logs/$target.summary"; done
exit "$failed"
