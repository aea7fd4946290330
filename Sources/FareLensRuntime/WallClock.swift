public import Foundation

/// The time of day as services see it. Injected, so quiet hours, trials and
/// schedules are tested without waiting (see `ManualWallClock` in FareLensTesting).
public protocol WallClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The real clock.
public struct SystemWallClock: WallClock {
    /// Creates the system clock.
    public init() {}
    public func now() -> Date { Date() }
}
