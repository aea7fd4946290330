#!/usr/bin/env bash
# The test command: set-up, boundary check, then every Swift Testing suite.
#
# Set-up (ops/install-deps.sh) comes first, so a fresh machine needs nothing
# else: as root it installs the Debian packages that are missing (otherwise
# it names them, and stops if the build or the tests need one), and it keeps
# the PyPI tools the gateway's tests run in .build/python-venv, whose python
# the tests find in FARELENS_PYTHON. Each step is quiet when all is present.
#
# The suites run under a time limit (FARELENS_TEST_LIMIT_SECONDS, default
# 1500): a hang fails the run within the limit and names the tests still
# running, instead of holding CI until its own timeout. Processes the tests
# start (farelens, farelensctl) are killed afterwards if a crash left any.
set -euo pipefail
cd "$(dirname "$0")/.."
# Swift on PATH, or where the README's machine keeps it.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
command -v swift >/dev/null 2>&1 || { echo "ops/test.sh: swift is not on PATH (Swift 6.2 or newer; README, Prerequisites)" >&2; exit 1; }
ops/install-deps.sh
ops/check-boundaries.sh
# The NATS transport is a package trait (docs/decisions/0026): the tests
# build it, so the NATS shape of the mesh suites runs against a real
# nats-server; the README's `swift run farelens serve` needs neither.
swift build --build-tests --traits NATS
# Exported after the build: a build under another environment than the
# developer's own `swift build` rebuilt every module on each alternation.
export FARELENS_PYTHON="$PWD/.build/python-venv/bin/python"
# Output that follows the terminal's locale (farelensctl's tables and price
# chart: ASCII without UTF-8) is tested in UTF-8, whatever the caller's locale.
export LC_ALL=C.UTF-8

# Every file the tests make (sockets, stores, databases, temporary
# directories: about 3 GB and a thousand directories a run) goes in a
# scratch directory of this run's own, removed when the script ends however
# it ends. Short, because the tests put Unix sockets in it (103 bytes).
scratch="$(mktemp -d /tmp/flt-run.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"

limit="${FARELENS_TEST_LIMIT_SECONDS:-1500}"
# Every node the tests start serves the gateway on a port the system
# chooses, so nodes started side by side never contend for 127.0.0.1:8080.
export FARELENS_GATEWAY_LISTEN="${FARELENS_GATEWAY_LISTEN:-127.0.0.1:0}"
# One `swift test` runs every suite in parallel, six tests at a time
# (Swift Testing's SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH; it
# starts every test at once otherwise, and on 2 cores 114 of 1,077 once
# failed together, bounded waits giving up in one stall of both cores).
# Time in the tests is a clock they move, or real time with a bound for
# real processes and servers, so the run does not depend on how busy the
# machine is (docs/architecture.md, Known gaps, "Time"). The suites after it run one
# after another (--no-parallel), each alone, because:
# - BridgeLateHelloTests holds every thread of the concurrency pool for 600 ms on purpose;
# - SQLiteProcessSettingsTests needs the first use of SQLite in its process (docs/decisions/0018);
# - BusyWriterTests holds a database's writer thread for up to 2 s, which stalls its process;
# - WatchlistConcurrentCreateTests races 16 creates, each asking subscription, to prove one is kept;
# - AlertsProcessTests, PushProcessTests and DemoPushProcessTests SIGKILL real node processes mid-delivery
#   and wait, bounded, for every decision after the restart: beside the parallel run's own processes
#   their bounds gave up (1 run in 4, 2026-11-29).
width="${FARELENS_TEST_WIDTH:-6}"
alone='BridgeLateHelloTests|SQLiteProcessSettingsTests|BusyWriterTests|WatchlistConcurrentCreateTests|AlertsProcessTests|PushProcessTests|DemoPushProcessTests'
log="$(mktemp -t farelens-tests.XXXXXX)"
start=$SECONDS

# Runs `swift test` with the given selection under what is left of the
# limit, streaming its output; both runs append to one log.
run_phase() {
  local left=$((limit - (SECONDS - start)))
  [ "$left" -gt 0 ] || return 124
  local phase_log="$log.phase"
  : >"$phase_log"
  timeout --kill-after=30 "$left" swift test --skip-build --traits NATS "$@" >"$phase_log" 2>&1 </dev/null &
  local runner=$!
  tail --pid="$runner" -n +1 -f "$phase_log"
  wait "$runner"
  local phase_status=$?
  cat "$phase_log" >>"$log"
  rm -f "$phase_log"
  return "$phase_status"
}

set +e
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="$width" run_phase --skip "$alone"
status=$?
run_phase --filter "$alone" --no-parallel
alone_status=$?
[ "$status" -ne 0 ] || status=$alone_status
set -e

leftovers="$(pgrep -f "^$PWD/\.build/.*/farelens(ctl|-test-node)? |nats-server .*-sd $scratch/" || true)"
if [ -n "$leftovers" ]; then
  echo "ops/test.sh: killing processes the tests left running: $(echo $leftovers)"
  kill -KILL $leftovers 2>/dev/null || true
fi
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "ops/test.sh: the tests did not finish within ${limit}s; started but not finished:"
  grep -oE '^[^ ]+ Test "[^"]*" started' "$log" | grep -oE 'Test "[^"]*"' | sort -u >"$log.started"
  grep -oE '^[^ ]+ Test "[^"]*"( with [0-9]+ test cases?)? (passed|failed|skipped)' "$log" | grep -oE 'Test "[^"]*"' | sort -u >"$log.done"
  comm -23 "$log.started" "$log.done" | sed 's/^/  /'
fi
# A failure is repeated at the very end, with the lines that explain it, so
# the tail of a long CI log names the test that failed and why.
if [ "$status" -ne 0 ] && grep -q '✘' "$log"; then
  echo "ops/test.sh: failed (exit $status); the failures, as the runner reported them:"
  grep -A6 -E '✘ Test .*(recorded an issue|failed after)' "$log" | grep -vE '^(◇|✔)' | head -80 | sed 's/^/  /'
fi
# A crashed test process (the runtime's backtracer) is shown by the thread
# that crashed, which names the code; the rest of the backtrace is in the log above.
if grep -q 'Program crashed' "$log"; then
  echo "ops/test.sh: a test process crashed:"
  grep -E '\*\*\* Program crashed' "$log" | head -3 | sed 's/^/  /'
  awk '/^Thread [0-9]+.*crashed:/ { shown = 1; lines = 0 } shown && lines < 40 { print "  " $0; lines++ }' "$log" | head -120
fi
rm -f "$log" "$log.started" "$log.done"
exit "$status"
