#!/usr/bin/env bash
# Every test layer: lints, native tests, wasm tests in Node and Chromium, the built package in Node,
# workerd and Chromium, the TypeScript declarations under `tsc --strict`, and the packed package in fresh
# projects built by each bundler and runtime (tests/consumers/).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each layer's time, printed at the end of the run.
timings=()
layer=""
layer_start=$SECONDS
end_layer() {
  if [ -n "$layer" ]; then timings+=("$(printf '%6ds  %s' $((SECONDS - layer_start)) "$layer")"); fi
}
step() {
  end_layer
  layer="$*"
  layer_start=$SECONDS
  printf '\n[test] === %s ===\n' "$*"
}

step "set-up: toolchains, the pinned CLI, Chromium, npm packages, the local model (skipped when present)"
bash scripts/setup.sh
step "build: both shipped modules and the package's entries"
bash scripts/build.sh

step "sizes of the shipped modules against their targets"
node scripts/size-budget.mjs dist/wasm/agent_governor_full_bg.wasm dist/guard/wasm/agent_governor_guard_bg.wasm

step "format and lints (panics, unwraps and indexing are denied outside tests)"
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings
cargo clippy --quiet --target wasm32-unknown-unknown --lib --tests -- -D warnings
cargo clippy --quiet --target wasm32-unknown-unknown --lib --no-default-features -- -D warnings

step "native tests: every rule of the seeds, property tests, the JSON contract"
cargo test --quiet

step "the answer-parser corpus (correct parse, typed reject, false reject, wrong accept, trap)"
cargo test --quiet --test answer_corpus -- --nocapture

step "fuzz smoke: every target for a few seconds (skipped without the pinned nightly toolchain)"
bash scripts/fuzz.sh 5

# The scripted OpenAI-compatible endpoint the client tests talk to (the wasm tests read its URL at build time).
fake_llm_log=$(mktemp)
node tests/support/fake-llm-server.mjs >"$fake_llm_log" &
fake_llm_pid=$!
trap 'kill "$fake_llm_pid" 2>/dev/null || true; rm -f "$fake_llm_log"' EXIT
for _ in $(seq 100); do [ -s "$fake_llm_log" ] && break; sleep 0.1; done
AGENT_GOVERNOR_FAKE_LLM=$(head -n 1 "$fake_llm_log")
export AGENT_GOVERNOR_FAKE_LLM

step "wasm-bindgen tests in Node"
cargo test --target wasm32-unknown-unknown --test wasm_node

step "wasm-bindgen tests in headless Chromium"
CHROMEDRIVER=$(command -v chromedriver) cargo test --target wasm32-unknown-unknown --test wasm_browser

step "TypeScript: a consumer compiled with tsc --noEmit --strict"
node_modules/.bin/tsc -p tests/types/tsconfig.json

step "the built package: Node, the README quick start, workerd, the approval page in Chromium, the local model"
# Two files at a time: the layer waits mostly on a browser, workerd or the local model, each using one core.
node --test --test-concurrency="${TEST_CONCURRENCY:-2}" tests/js/

step "consumers: the packed package in fresh projects with each bundler, runtime and TypeScript setup (pinned tools)"
node --test --test-concurrency=1 tests/consumers/

end_layer
printf '\n[test] time per layer (seconds):\n'
printf '%s\n' "${timings[@]}"
printf '%6ds  in all\n' "$SECONDS"
printf '\n[test] all layers passed\n'
