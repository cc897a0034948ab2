#!/usr/bin/env bash
# The main job: installs what is missing, builds the package, serves the approval page on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.mjs "$@"
