public import Foundation

/// A clock that runs `rate` times faster than real time from `epoch`:
/// at real instant t it reads `epoch + (t − epoch) × rate`.
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
    private let realNow: @Sendable () -> Date

    /// Creates the clock. `rate` below 1 is taken as 1.
    public init(epoch: Date, rate: Double, realNow: @escaping @Sendable () -> Date = { Date() }) {
        self.epoch = epoch
        self.rate = Swift.max(rate, 1)
        self.realNow = realNow
    }

    public func now() -> Date {
        epoch.addingTimeInterval(realNow().timeIntervalSince(epoch) * rate)
    }
}
