#!/usr/bin/env bash
# Installs everything the build and the tests need, skipping what is already there. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root for: $*"; return 1
  fi
}

# 1. The Rust target for WebAssembly.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. The wasm-bindgen CLI at exactly the version Cargo.lock pins (they refuse to work together otherwise).
wanted=$(cargo pkgid wasm-bindgen | sed 's/.*@//')
installed=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$installed" != "$wanted" ]; then
  log "installing wasm-bindgen-cli $wanted (found: ${installed:-none})"
  cargo install wasm-bindgen-cli --version "$wanted" --force
fi

# 3. Chromium and ChromeDriver from Debian, for the browser tests.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  log "installing chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -q
  install_chromium() { as_root apt-get install -y -q --no-install-recommends chromium chromium-driver; }
  install_chromium || { log "retrying the chromium install once"; sleep 5; install_chromium; }
fi

# 4. npm packages, exactly as locked.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund
fi

log "ready"
