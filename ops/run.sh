#!/usr/bin/env bash
# Runs every service in one process with embedded defaults (data in ./data).
# Extra arguments go to `farelens serve`, e.g. --services search,scoring.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product farelens
exec .build/release/farelens serve "$@"
