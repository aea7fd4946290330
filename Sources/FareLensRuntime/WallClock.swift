public import Foundation

/// The time of day as services see it. Injected, so quiet hours, trials and
/// schedules are tested without waiting (see `ManualWallClock` in FareLensTesting),
/// and the demo runs a week in a minute (``FastForwardClock``).
public protocol WallClock: Sendable {
    /// The current instant.
    func now() -> Date
    /// Clock seconds per real second: 1 for the real clock, more when fast-forwarded.
    var rate: Double { get }
}

extension WallClock {
    public var rate: Double { 1 }

    /// How long to really wait for `interval` of this clock's time to pass,
    /// never less than `floor`. Services schedule their periodic work (sweeps,
    /// checks, the outbox's tick) in clock time through this, so a
    /// fast-forwarded clock speeds them up with it.
    public func realDuration(of interval: Duration, floor: Duration = .milliseconds(20)) -> Duration {
        guard rate > 1 else { return interval }
        return max(interval / rate, floor)
    }
}

/// The real clock.
public struct SystemWallClock: WallClock {
    /// Creates the system clock.
    public init() {}
    public func now() -> Date { Date() }
}
