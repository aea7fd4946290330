#!/usr/bin/env bash
# Installs the Debian packages a fresh machine lacks (run as root). Swift
# itself is expected at /opt/swift or on PATH.
set -euo pipefail
needed=()
for pkg in libsqlite3-dev zlib1g-dev tzdata; do
  dpkg -s "$pkg" >/dev/null 2>&1 || needed+=("$pkg")
done
# systemd-analyze checks the units in ops/systemd (SystemdUnitTests).
command -v systemd-analyze >/dev/null 2>&1 || needed+=(systemd)
if [ ${#needed[@]} -gt 0 ]; then
  echo "installing: ${needed[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${needed[@]}"
else
  echo "debian packages: all present (libsqlite3-dev zlib1g-dev tzdata, systemd-analyze)"
fi
# GatewaySpecTests validates the API's OpenAPI document with openapi-spec-validator, and
# GatewaySchemathesisTests runs schemathesis against the served document (both PyPI).
if ! python3 -c "import openapi_spec_validator" >/dev/null 2>&1; then
  echo "installing: openapi-spec-validator (PyPI)"
  python3 -m pip install --quiet --disable-pip-version-check openapi-spec-validator
fi
if ! python3 -c "import schemathesis.cli" >/dev/null 2>&1; then
  echo "installing: schemathesis 4.32.5 (PyPI)"
  python3 -m pip install --quiet --disable-pip-version-check schemathesis==4.32.5
fi
