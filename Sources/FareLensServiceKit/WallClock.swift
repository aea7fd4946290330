public import Foundation

/// The time of day as services see it. Injected, so quiet hours, trials and
/// schedules are tested without waiting (see `ManualWallClock` in FareLensTesting),
/// and the demo runs a week in a minute (``FastForwardClock``).
public protocol WallClock: Sendable {
    /// The current instant.
    func now() -> Date
    /// Clock seconds per real second: 1 for the real clock, more when fast-forwarded.
    var rate: Double { get }
    /// Tells the clock when periodic work named `work` ("search.sweep") is
    /// next due: `next` is asked whenever the clock is asked (nil: nothing
    /// planned); an instant at or before now means due and not yet run.
    /// A ``SteppedClock`` steps a long advance through these instants one
    /// at a time; other clocks ignore plans.
    func plan(_ work: String, next: @escaping @Sendable () -> Date?)
    /// Forgets `work`'s plan (its service is stopping).
    func unplan(_ work: String)
}

extension WallClock {
    public var rate: Double { 1 }
    public func plan(_ work: String, next: @escaping @Sendable () -> Date?) {}
    public func unplan(_ work: String) {}

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
