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
    /// Suspends until `interval` of this clock's time has passed: every
    /// periodic loop of a service waits here, never on `Task.sleep` with a
    /// real duration, so a test's manual clock runs the loop when the test
    /// moves time and not otherwise. A real wait is never shorter than `floor`.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(for interval: Duration, floor: Duration) async throws
    /// Suspends until this clock reads `instant` or later (at once if it already does).
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until instant: Date, floor: Duration) async throws
}

extension WallClock {
    public var rate: Double { 1 }
    public func plan(_ work: String, next: @escaping @Sendable () -> Date?) {}
    public func unplan(_ work: String) {}

    /// Really waits ``realDuration(of:floor:)``: the clock's interval, sped up with it.
    public func sleep(for interval: Duration, floor: Duration) async throws {
        try await Task.sleep(for: realDuration(of: interval, floor: floor))  // safe: the clock's own wait, cancelled with its task
    }

    /// Really waits until the clock should read `instant`, at least `floor` when it does not yet.
    public func sleep(until instant: Date, floor: Duration) async throws {
        let remaining = instant.timeIntervalSince(now())
        if remaining <= 0 { return try Task.checkCancellation() }
        try await sleep(for: .seconds(remaining), floor: floor)
    }

    /// ``sleep(for:floor:)`` with a 20 ms floor.
    public func sleep(for interval: Duration) async throws {
        try await sleep(for: interval, floor: .milliseconds(20))
    }

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

extension Duration {
    /// The duration in seconds, as a `TimeInterval` (to move a `Date` by it).
    public var timeInterval: TimeInterval {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
