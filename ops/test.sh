#!/usr/bin/env bash
# The test command: boundary check, then every Swift Testing suite.
set -euo pipefail
cd "$(dirname "$0")/.."
ops/check-boundaries.sh
swift build --build-tests
swift test --skip-build
