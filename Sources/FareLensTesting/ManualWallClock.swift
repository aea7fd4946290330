public import FareLensBus
public import FareLensServiceKit
public import Foundation
import Synchronization

/// A wall clock that moves only when a test says so. A service's periodic
/// loop waiting on it (``WallClock/sleep(for:floor:)``) runs when
/// ``advance(by:)`` reaches its instant, never because real time passed:
/// a test moves time, then waits for the work it made due.
public final class ManualWallClock: WallClock {
    private let current: Mutex<Date>
    private let sleepers = ClockSleepers()

    /// Starts at `start`.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = Mutex(start) }

    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward and wakes every loop whose wait it reached.
    public func advance(by seconds: TimeInterval) {
        let now = current.withLock { now in
            now += seconds
            return now
        }
        sleepers.resume(upTo: now)
    }

    public func sleep(for interval: Duration, floor: Duration) async throws {
        try await sleep(until: now().addingTimeInterval(interval.timeInterval), floor: floor)
    }

    public func sleep(until instant: Date, floor: Duration) async throws {
        try await sleepers.wait(until: instant, now: now())
    }

    /// How many tasks wait on this clock now.
    public var sleeping: Int { sleepers.count }

    /// Waits (really, polling, at most `limit`) until at least `count` tasks
    /// wait on this clock: the loops have come round to their waits, so the
    /// work before them is done. Returns whether they did in time.
    @discardableResult
    public func waitUntilSleeping(_ count: Int = 1, limit: Duration = .seconds(30)) async -> Bool {
        let end = ContinuousClock.now + limit
        while sleepers.count < count {
            guard ContinuousClock.now < end else { return false }
            try? await Task.sleep(for: .milliseconds(2))  // safe: bounded test polling, never a timing assertion
        }
        return true
    }
}

extension TransportClock {
    /// A transport clock that reads `manual` and waits until the test moves it.
    public init(following manual: ManualWallClock) {
        self.init(read: { manual.now() }, sleep: { instant in try await manual.sleep(until: instant, floor: .zero) })  // safe: ends when the test moves the clock past `instant`, or on cancellation
    }
}

extension BusClock {
    /// A bus clock that reads `manual` and waits until the test moves it:
    /// its instants are the continuous clock's at the moment this was made,
    /// plus however far `manual` has been moved since.
    public init(following manual: ManualWallClock) {
        let base = ContinuousClock.now
        let start = manual.now()
        self.init(
            now: { base.advanced(by: .seconds(manual.now().timeIntervalSince(start))) },
            sleep: { instant in
                try await manual.sleep(until: start.addingTimeInterval((instant - base).timeInterval), floor: .zero)  // safe: ends when the test moves the clock past `instant`, or on cancellation
            })
    }

    /// A bus clock nobody moves: no request on it times out and no
    /// gathering window on it ends, however long a loaded machine keeps
    /// them waiting. For tests of answers, bounds and cancellation, whose
    /// deadlines are not what they test (in place of a deadline raised "long
    /// enough for a loaded run"); a test of deadlines or windows keeps its
    /// ``ManualWallClock`` and moves it.
    public static func standing() -> BusClock {
        BusClock(following: ManualWallClock())
    }
}
