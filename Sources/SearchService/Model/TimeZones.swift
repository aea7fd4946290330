public import Foundation
import Synchronization

/// `TimeZone(identifier:)` reads the zone database on every call on Linux
/// (microseconds); the search path asks for the same few zones all the
/// time, so they are kept once made. Unknown identifiers give UTC.
public enum TimeZones {
    private static let known = Mutex<[String: TimeZone]>([:])

    /// The zone for an IANA identifier, or UTC when it is unknown.
    public static func zone(_ identifier: String) -> TimeZone {
        if let zone = known.withLock({ $0[identifier] }) { return zone }
        let zone = TimeZone(identifier: identifier) ?? .gmt
        known.withLock { $0[identifier] = zone }
        return zone
    }
}
