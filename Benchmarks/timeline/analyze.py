#!/usr/bin/env python3
"""Lines up two processes' wire timelines and says where a lone request's time goes.

    FARELENS_WIRE_TIMELINE=/tmp/wt BENCH_SEQUENTIAL_ONLY=1 \
        Benchmarks/.build/release/wire-benchmarks process Benchmarks/.build/release/farelens
    Benchmarks/timeline/analyze.py CALLER_FILE ANSWERER_FILE [bridge|floor]

CALLER_FILE is the calling process's wire-timeline-PID.txt (it has point 0);
ANSWERER_FILE the farelens node's (bridge) or the nio-echo child's (floor).
Lines are "POINT NANOSECONDS CPU" (Sources/FareLensWire/WireTimeline.swift):
0 request encoding starts, 1 frame queued, 2 frames written, 3 frame read,
4 response decoded, 7 typed response decoded (0 and 7 are marked by the
calling side's PeerConnection.request, and by the floor's caller). Both clocks are CLOCK_MONOTONIC, so the
answerer's marks fall between the caller's write and read of the same request.
"""
import bisect
import collections
import statistics
import sys

CALLER = [0, 1, 2, 3, 4, 7]
ANSWERER = {"bridge": [3, 1, 2], "floor": [3, 2]}


def load(path):
    with open(path) as lines:
        return [tuple(int(field) for field in line.split()) for line in lines if line.strip()]


def runs(marks, pattern):
    """Consecutive marks whose points follow `pattern` exactly (one request each)."""
    found, i, n = [], 0, len(pattern)
    while i + n <= len(marks):
        if [mark[0] for mark in marks[i:i + n]] == pattern:
            found.append(marks[i:i + n])
            i += n
        else:
            i += 1
    return found


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kind = sys.argv[3] if len(sys.argv) > 3 else "bridge"
    calls = runs(load(sys.argv[1]), CALLER)
    answers = runs(load(sys.argv[2]), ANSWERER[kind])
    arrivals = [answer[0][1] for answer in answers]
    pairs = []
    for call in calls:
        written, read = call[2][1], call[3][1]
        j = bisect.bisect_left(arrivals, written)
        if j < len(answers) and answers[j][-1][1] <= read:
            pairs.append((call, answers[j]))
    if not pairs:
        sys.exit("no request of the caller's file matches one of the answerer's")

    def us(later, earlier):
        return (later - earlier) / 1000

    segments = [
        ("caller: request → frame queued (encode)", lambda c, a: us(c[1][1], c[0][1])),
        ("caller: queued → written (pool → loop)", lambda c, a: us(c[2][1], c[1][1])),
        ("crossing out: written → read by the answerer", lambda c, a: us(a[0][1], c[2][1])),
        ("answerer: read → reply written", lambda c, a: us(a[-1][1], a[0][1])),
        ("crossing back: written → read by the caller", lambda c, a: us(c[3][1], a[-1][1])),
        ("caller: frame read → response decoded", lambda c, a: us(c[4][1], c[3][1])),
        ("caller: decoded → resumed (correlate, loop → pool, decode)", lambda c, a: us(c[5][1], c[4][1])),
    ]
    print(f"{kind}: {len(pairs)} requests lined up ({len(calls)} in the caller's file)")
    print(f"{'segment':58s} {'p25':>7s} {'p50':>7s} {'p75':>7s}  µs")
    for name, measure in segments:
        values = sorted(measure(c, a) for c, a in pairs)
        print(f"{name:58s} {values[len(values) // 4]:7.1f} {median(values):7.1f} {values[3 * len(values) // 4]:7.1f}")
    totals = sorted(us(c[5][1], c[0][1]) for c, a in pairs)
    print(f"{'whole request':58s} {totals[len(totals) // 4]:7.1f} {median(totals):7.1f} {totals[3 * len(totals) // 4]:7.1f}")

    print("\nby placement: the CPU of the caller's task (point 0), its event loop (point 2) and the answerer's loop (its first point)")
    groups = collections.defaultdict(list)
    for c, a in pairs:
        groups[(c[0][2], c[2][2], a[0][2])].append((c, a))
    print(f"{'task loop | answerer':22s} {'share':>6s} {'p50':>7s} {'out':>6s} {'back':>6s} {'answer':>7s} {'→ loop':>7s} {'→ task':>7s}  µs")
    for (task, loop, answerer), group in sorted(groups.items(), key=lambda item: -len(item[1])):
        if len(group) < len(pairs) / 200:
            continue
        columns = [median([us(c[5][1], c[0][1]) for c, a in group])]
        for _, measure in (segments[2], segments[4], segments[3], segments[1], segments[6]):
            columns.append(median([measure(c, a) for c, a in group]))
        print(f"{task:>4d} {loop:>4d} | {answerer:<10d} {100 * len(group) / len(pairs):5.1f}% " + " ".join(f"{value:7.1f}" for value in columns))


if __name__ == "__main__":
    main()
