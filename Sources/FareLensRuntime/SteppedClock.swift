public import Foundation
import Synchronization

/// A clock that stands still until it is told to move: it reads `start`
/// until ``advance(to:)`` moves it forward, all at once. For a demo or an
/// end-to-end run whose answers must not depend on how fast the machine is
/// (`farelens serve --demo --demo-clock stepped`, moved by `farelensctl
/// clock advance`): every service sees each instant exactly, and whoever
/// moves the clock waits for the mesh to fall still before moving it again.
/// Simulated time only: never used unless asked for.
public final class SteppedClock: WallClock {
    private let instant: Mutex<Date>

    /// A clock standing at `start`.
    public init(start: Date) { instant = Mutex(start) }

    public func now() -> Date { instant.withLock { $0 } }

    /// As fast as can be: periodic work polls at its floor (20–50 ms) and
    /// runs when a step has made it due.
    public var rate: Double { 1e9 }

    /// Moves the clock to `target`; a target before now leaves it where it is.
    ///
    /// - Returns: the time after the call.
    @discardableResult
    public func advance(to target: Date) -> Date {
        instant.withLock { now in
            if target > now { now = target }
            return now
        }
    }
}
