#!/usr/bin/env bash
# Builds the NATS reference of wire-benchmarks' `process` mode into
# Benchmarks/.build/nats-reference. Needs Debian's libnats-dev (nats.c) and,
# to run, nats-server: apt-get install -y libnats-dev nats-server
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/../.build"
cc -O2 -Wall -Wextra -o "$here/../.build/nats-reference" "$here/nats_reference.c" -lnats -lpthread
echo "built $here/../.build/nats-reference"
