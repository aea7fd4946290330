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

limit="${FARELENS_TEST_LIMIT_SECONDS:-1500}"
# Every node the tests start serves the gateway on a port the system
# chooses, so nodes started side by side never contend for 127.0.0.1:8080.
export FARELENS_GATEWAY_LISTEN="${FARELENS_GATEWAY_LISTEN:-127.0.0.1:0}"
# The suites that start many real processes (whole meshes on a fast-forwarded
# demo clock, the systemd units' and compose file's commands, the backup
# scripts) keep both cores busy: they run after the others, on their own, so
# they neither starve the in-process bridge tests (whose waits are bounded)
# nor are starved. BridgeLateHelloTests holds every thread of the concurrency
# pool for 600 ms on purpose: it runs last, alone, so no other test holds a
# thread it needs or waits behind it. SQLiteProcessSettingsTests needs its
# database to be the first use of SQLite in the process (docs/decisions/0018):
# it runs in that last phase too, away from the suites that open SQLite
# directly. BusyWriterTests holds a database's writer thread on purpose (up
# to 2 s); among the other suites that stalled the whole process (a request
# elsewhere timed out after 5 s in 1 of 3 runs), so it runs there as well.
# WatchlistConcurrentCreateTests sends 16 creates at once, each asking the
# subscription service first: among the suites starting together on 2
# cores, 5 of 20 such lookups once took over the bus's 5 s, so it runs
# there too.
# The gateway's suites start whole nodes (every service, the airport
# directory and fare data loaded) for each test: beside the main phase they
# starved its bounded waits (3 timeouts in one run), so they run with the
# heavy suites. So does WebhookReceiverProcessTests: a demo on its fast
# clock beside a Python webhook receiver, and farelensctl polled meanwhile.
# Nothing in a test may wait for a child process on a thread of the pool
# (FinishedProcess.run waits on a thread of its own): three suites that did
# (the compose commands, systemd-analyze, the backup scripts) stopped the
# whole test process's pool for up to 12.5 s at a time in this phase (a
# probe's 20 ms sleeps, 2026-11-30), and a NATS test's 90 requests outlasted
# their 30 s bound in CI. Fixed, the probe's longest stall there was 3.7 s.
# The NATS suites (NATSTransportTests, NATSProcessTests, NATSClusterTests)
# start nats-servers of their own, clusters and processes: heavy too.
# The suites that start real farelens processes and kill them
# (TwoProcessTests, ServiceProcessTests, ProcessCrashTests,
# CtlProcessTests) run there too: in the first phase,
# with every other suite starting at once, the process start-ups held both
# cores for half a minute and requests with 5 s deadlines elsewhere timed
# out (6 to 12 failures in each of 7 runs on 2026-11-28; none in 3 runs since).
# AlertsProcessTests (an alerts process killed mid-stream, restarted, and
# every decision's AlertDecided awaited within 60 s) gave up once in 4 runs
# beside the heavy suites: it runs in the last phase.
# The last phase ("alone") runs its suites one after another
# (--no-parallel): each is alone.
# The suites that compute for seconds without awaiting anything (the
# simulated market's rules over many routes, dates and seeds; calibration;
# the quiet-hours comparison; 200,000 alert ids) hold a thread of the
# two-thread concurrency pool while they run: beside the others they starved
# tests that wait, within a bound, for work to pass through several services
# (two such waits gave up after 10 s in 4 of 16 runs). They run in a phase of
# their own, after the others. So do the generated concurrency cases (the
# durable-delivery and relay properties, 5,000 events with a request each,
# a simulated week of alerts), tens of seconds of work on both cores.
# The push suites (issue #62): those driving the APNs stub (TLS and HTTP/2,
# 100 pushes at once) run with the compute phase, and the push process suites
# (a demo week, a SIGKILLed alerts process) in the last phase: added to the
# first and heavy phases, a fresh-clone CI run on 2026-11-29 had a 5 s bus
# deadline in the first phase and a demo test's wait in the heavy phase give up.
compute='MarketCarrierTests|MarketPriceLevelTests|MarketCurrencyTests|SimulatedMarketTests|MarketSweepTests|CalibrationTests|QuietHoursEndTests|AlertIDTests|DurableDeliveryPropertyTests|DurableRelayPropertyTests|BridgeRequestBehindEventsTests|SimulatedWeekTests|ApnsChannelTests|PushOutboxTests|SilentPushTests'
alone='BridgeLateHelloTests|SQLiteProcessSettingsTests|BusyWriterTests|WatchlistConcurrentCreateTests|AlertsProcessTests|PushProcessTests|DemoPushProcessTests'
heavy='GatewayTests\.|GatewayProcessTests|DemoProcessTests|WebhookReceiverProcessTests|EndToEndTests|SystemdUnitTests|ComposeCommandsTests|BackupScriptsTests|ConfigExampleTests|NodeAdminProcessTests|TwoProcessTests|ServiceProcessTests|ProcessCrashTests|CtlProcessTests|PaymentsProcessTests|NATSTransportTests|NATSPermissionsTests|NATSProcessTests|NATSClusterTests'
log="$(mktemp -t farelens-tests.XXXXXX)"
start=$SECONDS

# Runs `swift test` with the given selection under what is left of the
# limit, streaming its output; every phase appends to one log.
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
run_phase --skip "$heavy|$alone|$compute"
status=$?
run_phase --filter "$compute"
compute_status=$?
[ "$status" -ne 0 ] || status=$compute_status
run_phase --filter "$heavy"
heavy_status=$?
[ "$status" -ne 0 ] || status=$heavy_status
run_phase --filter "$alone" --no-parallel
alone_status=$?
[ "$status" -ne 0 ] || status=$alone_status
set -e

leftovers="$(pgrep -f "^$PWD/\.build/.*/farelens(ctl|-test-node)? |nats-server .*-sd /tmp/flt-nats-" || true)"
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
