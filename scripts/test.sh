#!/usr/bin/env bash
# Every test layer: lints, native tests, wasm tests in Node and Chromium, the built package in Node,
# workerd and Chromium, and the TypeScript declarations under `tsc --strict`.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n[test] === %s ===\n' "$*"; }

bash scripts/setup.sh
bash scripts/build.sh

step "format and lints (panics, unwraps and indexing are denied outside tests)"
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings
cargo clippy --quiet --target wasm32-unknown-unknown --lib --tests -- -D warnings

step "native tests: every rule of the seeds, property tests, the JSON contract"
cargo test --quiet

step "wasm-bindgen tests in Node"
cargo test --target wasm32-unknown-unknown --test wasm_node

step "wasm-bindgen tests in headless Chromium"
CHROMEDRIVER=$(command -v chromedriver) cargo test --target wasm32-unknown-unknown --test wasm_browser

step "TypeScript: a consumer compiled with tsc --noEmit --strict"
node_modules/.bin/tsc -p tests/types/tsconfig.json

step "the built package: Node, the README quick start, workerd, the approval page in Chromium"
node --test --test-concurrency=1 tests/js/

printf '\n[test] all layers passed\n'
