#!/usr/bin/env bash
# Builds the npm package into dist/: real-LTO wasm -> wasm-bindgen -> wasm-opt -> entry points per host.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[build] %s\n' "$*"; }
crate=agent_governor
out=dist
raw_wasm=target/wasm32-unknown-unknown/release/$crate.wasm

# `cargo build` skips LTO for a crate that is both cdylib and rlib; building the cdylib alone applies it.
log "compiling the release cdylib (real LTO)"
cargo rustc --quiet --release --target wasm32-unknown-unknown --lib --crate-type cdylib

rm -rf "$out"
mkdir -p "$out/wasm"
# One web-target output serves every host: each entry point below instantiates it its own way.
log "generating JS bindings and TypeScript declarations"
wasm-bindgen "$raw_wasm" --out-dir "$out/wasm" --target web --remove-name-section --remove-producers-section

log "optimising with wasm-opt (binaryen from npm)"
node_modules/.bin/wasm-opt -Oz "$out/wasm/${crate}_bg.wasm" -o "$out/wasm/${crate}_bg.wasm"

cp src/wasm/entries/*.js src/wasm/entries/*.d.ts "$out/"

shipped="$out/wasm/${crate}_bg.wasm"
raw=$(wc -c <"$shipped")
gzipped=$(gzip -9 -c "$shipped" | wc -c)
log "shipped $shipped: $raw bytes raw, $gzipped bytes gzip ($(( (raw + 512) / 1024 )) KiB / $(( (gzipped + 512) / 1024 )) KiB)"
