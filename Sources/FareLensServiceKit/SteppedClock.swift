public import Foundation
import Synchronization

/// A clock that stands still until it is told to move: it reads `start`
/// until ``advance(to:)`` moves it forward, all at once. For a demo or an
/// end-to-end run whose answers must not depend on how fast the machine is
/// (`farelens serve --demo --demo-clock stepped`, moved by `farelensctl
/// clock advance`): every service sees each instant exactly, and whoever
/// moves the clock waits for the mesh to fall still before moving it again.
/// Simulated time only: never used unless asked for.
///
/// Services tell it when their periodic work is next due (``plan(_:next:)``:
/// the market sweep, the users' watchlist checks), so that whoever moves
/// it can stop at each due instant of a long step in turn (``plans()``),
/// and know when work a step made due has run: a step of a day sweeps as
/// often as four steps of six hours (`farelensctl clock advance`).
public final class SteppedClock: WallClock {
    private let instant: Mutex<Date>
    private let planned = Mutex<[String: @Sendable () -> Date?]>([:])

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

    public func plan(_ work: String, next: @escaping @Sendable () -> Date?) {
        planned.withLock { $0[work] = next }
    }

    public func unplan(_ work: String) {
        _ = planned.withLock { $0.removeValue(forKey: work) }
    }

    /// What the services' plans say now.
    public struct Plans: Sendable, Equatable {
        /// The earliest instant after now at which planned work is due; nil: none planned.
        public var nextDue: Date?
        /// Work due at or before now that has not run yet, by name, sorted.
        public var overdue: [String]
    }

    /// Asks every plan (outside the clock's locks: a plan may read a database).
    public func plans() -> Plans {
        let plans = planned.withLock { $0 }
        let now = now()
        var result = Plans(nextDue: nil, overdue: [])
        for (work, next) in plans {
            guard let due = next() else { continue }
            if due <= now {
                result.overdue.append(work)
            } else if result.nextDue.map({ due < $0 }) ?? true {
                result.nextDue = due
            }
        }
        result.overdue.sort()
        return result
    }
}
