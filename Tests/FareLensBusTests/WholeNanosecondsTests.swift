@testable import FareLensBus
import Metrics
import MetricsTestKit
import PropertyBased
import Testing

/// The bus converts a `Duration` (a request's timeout, its default
/// deadline) to whole nanoseconds itself (`BusInstant.wholeNanoseconds`)
/// rather than through `Duration.components`, a 128-bit division that was
/// 4.7% of the in-process request when swift-metrics' `Timer.record(duration:)`
/// did it (docs/performance.md). It must give exactly what swift-metrics
/// records for the same duration.
@Suite("Durations in whole nanoseconds, as swift-metrics records them")
struct WholeNanosecondsTests {
    /// What swift-metrics' own `record(duration:)` records for `duration`.
    private func recordedBySwiftMetrics(_ duration: Duration) throws -> Int64? {
        let metrics = TestMetrics()
        let timer = Metrics.Timer(label: "latency", factory: metrics)
        timer.record(duration: duration)
        return try metrics.expectTimer("latency").lastValue
    }

    @Test("Edges: zero, under a nanosecond, either side of 2^63 attoseconds (9.22 s), and past Int64 nanoseconds")
    func edges() throws {
        let attoseconds: [Int128] = [
            0, 1, 999_999_999, 1_000_000_000, 1_000_000_001,
            Int128(Int64.max) - 1, Int128(Int64.max), Int128(Int64.max) + 1, Int128(Int64.max) * 3,
            Int128(Int64.max) * 1_000_000_000, Int128(Int64.max) * 1_000_000_000 + 999_999_999,
            Int128(Int64.max) * 1_000_000_000 + 1_000_000_000, Int128(Int64.max) * 2_000_000_000,
        ]
        for value in attoseconds {
            let duration = Duration(attoseconds: value)
            #expect(BusInstant.wholeNanoseconds(of: duration) == (try recordedBySwiftMetrics(duration)), "\(value) attoseconds")
        }
    }

    @Test("Generated latencies from attoseconds to hours agree with swift-metrics")
    func generated() async {
        await propertyCheck(count: 500, input: Gen.int64(in: 0 ... 20_000), Gen.int64(in: 0 ... 999_999_999_999_999_999)) { seconds, attoseconds in
            let duration = Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
            let recorded = try? recordedBySwiftMetrics(duration)
            #expect(recorded != nil, "swift-metrics recorded nothing")
            #expect(BusInstant.wholeNanoseconds(of: duration) == recorded)
        }
    }
}
