public import FareLensStore
public import Foundation
import GRDB

/// The day ahead of the check schedule, for every user with watchlists:
/// what the service logs at start ("checks planned in the next 24 h") and
/// what the planning benchmark measures.
public enum WatchlistPlanning {
    /// What one day holds.
    public struct Day: Sendable, Equatable {
        /// Users with watchlists.
        public var users: Int
        /// Checks in the day (a Pro user has two, a Free user one).
        public var checks: Int
        /// Checks in each hour of the day, from `start`.
        public var checksPerHour: [Int]
    }

    /// Plans [start, start + 24 h) for every owner in the watchlist service's `database`.
    public static func day(database: ServiceDatabase, from start: Date) throws -> Day {
        let owners = try database.writer.read { db in try OwnerRecord.fetchAll(db) }
        let planned = owners.map { CheckPlanner.Planned(userID: $0.userID, timeZone: $0.timeZone, pro: $0.isPro) }
        let slots = CheckPlanner.day(planned, from: start)
        var perHour = Array(repeating: 0, count: 24)
        for slot in slots { perHour[min(23, Int(slot.at.timeIntervalSince(start) / 3600))] += 1 }
        return Day(users: owners.count, checks: slots.count, checksPerHour: perHour)
    }
}
