public import Foundation

/// A clock that runs `rate` times faster than real time from `epoch`:
/// at real instant t it reads `epoch + (t − epoch) × rate`, and stops at
/// `end` when one is given (the mesh then falls still: nothing is due).
///
/// Every process of a split mesh given the same epoch and rate reads the
/// same time, so a fast-forwarded demo can be split like the real thing
/// (`farelens serve --demo --demo-epoch …`, docs/demo.md). Simulated time
/// only: never used unless asked for.
public struct FastForwardClock: WallClock {
    /// Where simulated and real time meet.
    public let epoch: Date
    /// Simulated seconds per real second (≥ 1).
    public let rate: Double
    /// Where the clock stops; nil: it never does.
    public let end: Date?
    private let realNow: @Sendable () -> Date

    /// Creates the clock. `rate` below 1 is taken as 1.
    public init(epoch: Date, rate: Double, end: Date? = nil, realNow: @escaping @Sendable () -> Date = { Date() }) {
        self.epoch = epoch
        self.rate = Swift.max(rate, 1)
        self.end = end
        self.realNow = realNow
    }

    public func now() -> Date {
        let running = epoch.addingTimeInterval(realNow().timeIntervalSince(epoch) * rate)
        guard let end else { return running }
        return Swift.min(running, end)
    }
}
