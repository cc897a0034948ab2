#!/usr/bin/env bash
# The main job: installs what is missing, builds the package, starts the local model and serves the page.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node examples/start.mjs "$@"
