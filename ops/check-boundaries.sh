#!/usr/bin/env bash
# Fails if a service target imports another service target (services talk
# only through the bus), or if a service's build graph holds the node host
# (FareLensRuntime) or the socket bridge (FareLensWire): a service imports
# the service toolkit (FareLensServiceKit) and is hosted, in one process or
# split, without linking either (docs/architecture.md). Run from anywhere;
# exits 1 with the offending lines.
set -euo pipefail
cd "$(dirname "$0")/.."
services=(SearchService ScoringService WatchlistService SubscriptionService AlertsService AnalyticsService)
status=0
for s in "${services[@]}"; do
  [ -d "Sources/$s" ] || continue
  for o in "${services[@]}"; do
    [ "$s" = "$o" ] && continue
    if grep -rnE "^\s*(@testable\s+)?((public|internal|package)\s+)?import\s+$o\b" "Sources/$s"; then
      echo "boundary violation: Sources/$s imports $o (services may only talk through the bus)" >&2
      status=1
    fi
  done
done
# The gateway is a bus client like farelensctl: it imports no service at all.
for o in "${services[@]}"; do
  if grep -rnE "^\s*(@testable\s+)?((public|internal|package)\s+)?import\s+$o\b" Sources/FareLensGateway; then
    echo "boundary violation: Sources/FareLensGateway imports $o (the gateway reaches services only through the bus)" >&2
    status=1
  fi
done
# The build graph, from the package's own description: every target a service
# (or the gateway, hosted like one) depends on, directly or not.
if command -v swift >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
  if ! description="$(swift package describe --type json 2>&1)"; then
    echo "check-boundaries: swift package describe failed:" >&2
    echo "$description" | head -20 >&2
    exit 1
  fi
  echo "$description" | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
status = 0
for service in ["SearchService", "ScoringService", "WatchlistService", "SubscriptionService", "AlertsService", "AnalyticsService", "FareLensGateway"]:
    seen, todo = set(), [service]
    while todo:
        for dependency in targets.get(todo.pop(), {}).get("target_dependencies", []):
            if dependency not in seen:
                seen.add(dependency)
                todo.append(dependency)
    for host in sorted(seen & {"FareLensRuntime", "FareLensWire", "FareLensNATS", "CNats"}):
        print(f"boundary violation: {service} depends on {host} (a service imports FareLensServiceKit, never the node host, the bridge or the NATS transport)", file=sys.stderr)
        status = 1
sys.exit(status)
' || status=1
else
  echo "check-boundaries: swift or python3 missing; build graph not checked" >&2
  status=1
fi
[ $status -eq 0 ] && echo "service boundaries: ok (no service imports another; the gateway imports none; no service's build graph holds the node host or the bridge)"
exit $status
