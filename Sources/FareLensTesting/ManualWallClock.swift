public import FareLensServiceKit
public import Foundation
import Synchronization

/// A wall clock that moves only when a test says so.
public final class ManualWallClock: WallClock {
    private let current: Mutex<Date>
    /// Starts at `start`.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = Mutex(start) }
    public func now() -> Date { current.withLock { $0 } }
    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}
