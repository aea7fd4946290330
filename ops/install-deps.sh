#!/usr/bin/env bash
# The set-up ops/test.sh runs first: what a fresh machine lacks for the build
# and the tests. Safe to run again: it installs only what is missing and says
# one line when everything is present. Swift itself is expected on PATH (or
# at /opt/swift).
#
#   Debian packages  as root, apt-get installs the missing ones; otherwise it
#                    names them (and the apt-get line that installs them), and
#                    stops if one the build or the tests need is missing.
#   PyPI tools       openapi-spec-validator (GatewaySpecTests), schemathesis
#                    (GatewaySchemathesisTests) and standardwebhooks, the
#                    reference Standard Webhooks library the demo's webhooks
#                    are verified with (Tests/Scripts/webhook_receiver.py,
#                    WebhookReceiverProcessTests), go into a virtual
#                    environment in the ignored build folder,
#                    .build/python-venv, never into the system's Python.
#                    ops/test.sh exports its python as FARELENS_PYTHON; the
#                    tests also find it there alone.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=".build/python-venv"
schemathesis_version="4.32.5"
standardwebhooks_version="1.1.0"

# Debian packages: "package:what needs it". The build and the tests need
# these; the run stops without them.
needed=()
have_package() { dpkg -s "$1" >/dev/null 2>&1; }
have_package libsqlite3-dev || needed+=("libsqlite3-dev:the build (SQLite)")
have_package zlib1g-dev || needed+=("zlib1g-dev:the build (the bridge's compression)")
# The NATS transport (ops/test.sh builds it: --traits NATS) and the server its tests start.
have_package libnats-dev || needed+=("libnats-dev:the NATS transport's build (the official C client)")
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || needed+=("nats-server:the NATS shape of the mesh tests")
have_package tzdata || needed+=("tzdata:time zones in the tests")
# systemd-analyze checks the units in ops/systemd (SystemdUnitTests).
command -v systemd-analyze >/dev/null 2>&1 || needed+=("systemd:systemd-analyze (SystemdUnitTests)")
# The PyPI tools live in a virtual environment: python3 with its venv module
# (Debian ships ensurepip, which venv needs, in python3-venv).
if "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  : # made before, and it runs
elif ! command -v python3 >/dev/null 2>&1; then
  needed+=("python3:the OpenAPI tools' virtual environment" "python3-venv:the OpenAPI tools' virtual environment")
elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  needed+=("python3-venv:the OpenAPI tools' virtual environment (python3 -m venv)")
fi
# Wanted but not needed by the tests: the run goes on without them.
wanted=()
# wrk drives the gateway benchmark (Benchmarks/gateway-bench.py, docs/performance.md).
command -v wrk >/dev/null 2>&1 || wanted+=("wrk:the gateway benchmark")

# The package names of "package:why" items, separated by spaces.
names() { local item out=(); for item in "$@"; do out+=("${item%%:*}"); done; echo "${out[*]}"; }
changed=0
missing=("${needed[@]}" "${wanted[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "set-up: installing Debian packages: $(names "${missing[@]}")"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    changed=1
    apt-get install -y -qq --no-install-recommends $(names "${missing[@]}") >/dev/null
  else
    echo "set-up: missing Debian packages (not root, so not installing them):" >&2
    for item in "${missing[@]}"; do echo "  ${item%%:*} — ${item#*:}" >&2; done
    echo "  install them with: sudo apt-get install $(names "${missing[@]}")" >&2
    if [ ${#needed[@]} -gt 0 ]; then
      echo "set-up: stopping: the build or the tests need $(names "${needed[@]}")" >&2
      exit 1
    fi
    echo "set-up: carrying on: the tests do not need $(names "${wanted[@]}")" >&2
  fi
fi

# The PyPI tools, in the virtual environment. A venv whose python no longer
# runs (its interpreter moved or was upgraded) is made anew.
if [ -d "$venv" ] && ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  echo "set-up: $venv does not run; making it anew"
  rm -rf "$venv" 2>/dev/null || { echo "set-up: cannot remove $venv (made by another user?): remove it, or run as that user" >&2; exit 1; }
  changed=1
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "set-up: making the Python virtual environment $venv"
  mkdir -p .build
  python3 -m venv "$venv"
  changed=1
fi
py="$venv/bin/python"
pip_install() { "$py" -m pip install --quiet --disable-pip-version-check "$@"; changed=1; }
if ! "$py" -c 'import openapi_spec_validator' >/dev/null 2>&1; then
  echo "set-up: installing openapi-spec-validator (PyPI) into $venv"
  pip_install openapi-spec-validator
fi
if [ "$("$py" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null || true)" != "$schemathesis_version" ] \
  || ! "$py" -c 'import schemathesis.cli' >/dev/null 2>&1; then
  echo "set-up: installing schemathesis $schemathesis_version (PyPI) into $venv"
  pip_install "schemathesis==$schemathesis_version"
fi
if [ "$("$py" -c 'import importlib.metadata as m; print(m.version("standardwebhooks"))' 2>/dev/null || true)" != "$standardwebhooks_version" ] \
  || ! "$py" -c 'from standardwebhooks import Webhook' >/dev/null 2>&1; then
  echo "set-up: installing standardwebhooks $standardwebhooks_version (PyPI) into $venv"
  pip_install "standardwebhooks==$standardwebhooks_version"
fi
[ "$changed" = 1 ] || [ ${#missing[@]} -gt 0 ] || echo "set-up: everything present (Debian packages, $venv with openapi-spec-validator, schemathesis $schemathesis_version and standardwebhooks $standardwebhooks_version)"
