/// A tiny same-run comparison harness: it alternates the reference and the
/// candidate for several rounds, so both see the same machine noise, and
/// reports medians and the ratio of medians (see docs/decisions/0002).
struct Measurement {
    let name: String
    let perOperationNanos: [Double]
    var median: Double { perOperationNanos.sorted()[perOperationNanos.count / 2] }
}

/// Runs `body` (which performs `operations` operations) once and returns ns/op.
func timeOnce(operations: Int, _ body: () async -> Void) async -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    await body()
    let elapsed = clock.now - start
    let nanos = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    return nanos / Double(operations)
}

/// Alternates reference and candidate for `rounds` rounds after one warm-up each.
func compare(
    rounds: Int, operations: Int,
    reference: (String, () async -> Void),
    candidate: (String, () async -> Void)
) async -> (Measurement, Measurement) {
    _ = await timeOnce(operations: operations, reference.1)
    _ = await timeOnce(operations: operations, candidate.1)
    var referenceSamples: [Double] = [], candidateSamples: [Double] = []
    for _ in 0..<rounds {
        referenceSamples.append(await timeOnce(operations: operations, reference.1))
        candidateSamples.append(await timeOnce(operations: operations, candidate.1))
    }
    return (Measurement(name: reference.0, perOperationNanos: referenceSamples),
            Measurement(name: candidate.0, perOperationNanos: candidateSamples))
}

func format(_ value: Double, decimals: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return "\(rounded)"
}

/// Prints one line per figure: candidate, reference and ratio, with a verdict against the target.
func report(_ reference: Measurement, _ candidate: Measurement, maxRatio: Double) {
    let ratio = candidate.median / reference.median
    let verdict = ratio <= maxRatio ? "meets" : "MISSES"
    print("\(candidate.name): median \(format(candidate.median)) ns/op | reference \(reference.name): median \(format(reference.median)) ns/op | ratio \(format(ratio, decimals: 2))x (target <= \(format(maxRatio, decimals: 0))x: \(verdict))")
}
