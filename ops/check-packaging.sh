#!/usr/bin/env bash
# Checks docker/compose.yaml against the Compose Specification and runs the
# commands its services and health checks run on a local build (no container
# engine runs on these machines). See ops/check_packaging.py.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import yaml' 2>/dev/null || python3 -m pip install -q pyyaml
if [ "${1:-}" != "--commands" ]; then
  python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install -q jsonschema
fi
exec python3 ops/check_packaging.py "$@"
