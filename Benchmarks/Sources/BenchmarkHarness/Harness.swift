/// A tiny same-run comparison harness: it alternates the reference and the
/// candidate for several rounds, so both see the same machine noise, and
/// reports medians and the ratio of medians (see docs/decisions/0002).
public struct Measurement {
    public let name: String
    public let perOperationNanos: [Double]
    /// The middle value; for an even count, the mean of the two middle
    /// values (before 2026-11-23 the higher of them: two rounds of a rate
    /// reported their better round).
    public var median: Double {
        let sorted = perOperationNanos.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    public init(name: String, perOperationNanos: [Double]) {
        self.name = name
        self.perOperationNanos = perOperationNanos
    }
}

/// Runs `body` (which performs `operations` operations) once and returns ns/op.
public func timeOnce(operations: Int, _ body: () async -> Void) async -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    await body()
    return nanoseconds(clock.now - start) / Double(operations)
}

/// Times each of `count` calls of `body` separately (it gets the call's
/// index); returns nanoseconds per call, for percentiles.
public func latencies(_ count: Int, _ body: (Int) async -> Void) async -> [Double] {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for index in 0 ..< count {
        let start = ContinuousClock.now
        await body(index)
        samples.append(nanoseconds(ContinuousClock.now - start))
    }
    return samples
}

/// A duration in nanoseconds.
public func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

/// The `fraction` quantile (0.5 = median, 0.99 = p99) of `samples`, nearest rank.
public func percentile(_ samples: [Double], _ fraction: Double) -> Double {
    let sorted = samples.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// The median of `samples`.
public func median(_ samples: [Double]) -> Double { Measurement(name: "", perOperationNanos: samples).median }

/// Alternates reference and candidate for `rounds` rounds after one warm-up each.
public func compare(
    rounds: Int, operations: Int,
    reference: (String, () async -> Void),
    candidate: (String, () async -> Void)
) async -> (Measurement, Measurement) {
    let (referenceMeasurement, candidates) = await compare(rounds: rounds, operations: operations, reference: reference, candidates: [candidate])
    return (referenceMeasurement, candidates[0])
}

/// Like ``compare(rounds:operations:reference:candidate:)`` with several
/// candidates, each timed once per round right after the reference, so
/// every figure shares the same stretch of the machine's noise.
public func compare(
    rounds: Int, operations: Int,
    reference: (String, () async -> Void),
    candidates: [(String, () async -> Void)]
) async -> (Measurement, [Measurement]) {
    _ = await timeOnce(operations: operations, reference.1)
    for candidate in candidates { _ = await timeOnce(operations: operations, candidate.1) }
    var referenceSamples: [Double] = []
    var candidateSamples = [[Double]](repeating: [], count: candidates.count)
    for _ in 0..<rounds {
        referenceSamples.append(await timeOnce(operations: operations, reference.1))
        for (index, candidate) in candidates.enumerated() {
            candidateSamples[index].append(await timeOnce(operations: operations, candidate.1))
        }
    }
    return (Measurement(name: reference.0, perOperationNanos: referenceSamples),
            zip(candidates, candidateSamples).map { Measurement(name: $0.0, perOperationNanos: $1) })
}

public func format(_ value: Double, decimals: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return "\(rounded)"
}

/// Prints one line per figure: candidate, reference and ratio, with a verdict against the target.
public func report(_ reference: Measurement, _ candidate: Measurement, maxRatio: Double) {
    let ratio = candidate.median / reference.median
    let verdict = ratio <= maxRatio ? "meets" : "MISSES"
    print("\(candidate.name): median \(format(candidate.median)) ns/op | reference \(reference.name): median \(format(reference.median)) ns/op | ratio \(format(ratio, decimals: 2))x (target <= \(format(maxRatio, decimals: 0))x: \(verdict))")
}

/// Keeps a computed value alive so the optimiser cannot drop the work.
@inline(never)
public func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
