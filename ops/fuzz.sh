#!/usr/bin/env bash
# Builds the libFuzzer target Fuzz/ (FrameCodec.decode + envelope decoding)
# with the fuzzer and address sanitizers, and runs it for SECONDS (default 600)
# on a scratch copy of the seed corpus Fuzz/corpus/frames.
#
#   ops/fuzz.sh [seconds]
#
# Prints one summary line; exits 1 when libFuzzer found a crash (the crash
# input is kept under Fuzz/.build/crashes/), 2 when the build failed.
# Extra libFuzzer flags may be passed in FUZZ_ARGS (e.g. FUZZ_ARGS=-jobs=2).
set -euo pipefail

seconds="${1:-600}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fuzz="$root/Fuzz"
scratch="$fuzz/.build"
export PATH="/opt/swift/usr/bin:$PATH"
# Let libFuzzer/ASan report crashes: Swift's own backtracer stalls under ASan.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-handle_sigill=1:handle_sigtrap=1}"
[[ -x /opt/swift/usr/bin/llvm-symbolizer ]] && export ASAN_SYMBOLIZER_PATH=/opt/swift/usr/bin/llvm-symbolizer
build=(swift build -c release --package-path "$fuzz" --scratch-path "$scratch"
       --sanitize=fuzzer --sanitize=address)
mkdir -p "$scratch"
echo "building: ${build[*]}"
if ! "${build[@]}" > "$scratch/build.log" 2>&1; then
    tail -40 "$scratch/build.log"
    echo "fuzz: build failed (full log: $scratch/build.log)"
    exit 2
fi
bin="$(swift build -c release --package-path "$fuzz" --scratch-path "$scratch" \
       --sanitize=fuzzer --sanitize=address --show-bin-path)/FrameFuzzer"

work="$scratch/corpus-work"
crashes="$scratch/crashes"
mkdir -p "$work" "$crashes"
cp -n "$fuzz"/corpus/frames/* "$work"/ 2>/dev/null || true
log="$scratch/fuzz-$(date +%Y%m%d-%H%M%S).log"

echo "fuzzing for ${seconds}s: $bin (log: $log)"
set +e
# shellcheck disable=SC2086
"$bin" "$work" \
    -max_total_time="$seconds" -max_len=70000 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" -print_final_stats=1 ${FUZZ_ARGS:-} > "$log" 2>&1
status=$?
set -e

runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)"
eps="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)"
cov="$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 || true)"
crash="$(grep -Eo "Test unit written to [^ ]+" "$log" | tail -1 | sed 's/Test unit written to //' || true)"

if [[ $status -ne 0 || -n "$crash" ]]; then
    grep -E '^==[0-9]+==ERROR|Fatal error|SUMMARY|^ *#[0-9]+ ' "$log" | head -30 || true
    echo "fuzz: CRASH after ${runs:-?} runs (${eps:-?} exec/s, ${cov:-no coverage line}); input: ${crash:-none written} (exit $status; log: $log)"
    exit 1
fi
echo "fuzz: ${runs:-?} runs in ${seconds}s (${eps:-?} exec/s), ${cov:-no coverage line}, no crashes (log: $log)"
