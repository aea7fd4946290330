#!/usr/bin/env bash
# Fails if a service target imports another service target: services talk
# only through the bus. Run from anywhere; exits 1 with the offending lines.
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
[ $status -eq 0 ] && echo "service boundaries: ok (no service imports another; the gateway imports none)"
exit $status
