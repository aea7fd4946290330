import FareLensMessages
import Foundation
import GRDB

/// What the watchlist service knows of a user who has watchlists, as the
/// `owner` table stores it (migration `watchlist-001-watchlists`): their
/// time zone and tier (for the check schedule) and the tier's active
/// watchlist limit (for downgrades). It is learned from the subscription
/// service (`GetUser` on the first watchlist) and kept current by its
/// `TierChanged` and `UserPreferencesChanged` events; the limit itself is
/// never decided here.
struct OwnerRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "owner"

    var userID: String
    /// IANA time zone.
    var timeZone: String
    var tier: Int
    /// Active watchlists the tier allows; nil for unlimited.
    var activeLimit: Int?
    /// When this user's watchlists are next checked, Unix epoch ms.
    var nextCheckAtUnixMs: Int64
    /// Trips one check of a flexible watchlist's range scans (the tier's
    /// `flexible_date_pairs`, migration `watchlist-005-date-ranges`); nil
    /// until learned (rows from before it: the next range check asks).
    var datePairLimit: Int? = nil

    var tierValue: Tier { Tier(rawValue: tier) ?? .unspecified }

    /// Pro and trial are checked twice a day, Free once.
    var isPro: Bool { tierValue == .pro || tierValue == .trial }

    var schedule: CheckSchedule { .forUser(userID, pro: isPro) }

    /// The zone, or UTC if the stored identifier is no longer known to the tz database.
    var zone: TimeZone { TimeZone(identifier: timeZone) ?? .gmt }

    /// The table, created by migration `watchlist-001-watchlists`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("userID", .text).primaryKey()
            table.column("timeZone", .text).notNull()
            table.column("tier", .integer).notNull()
            table.column("activeLimit", .integer)
            table.column("nextCheckAtUnixMs", .integer).notNull().indexed()
        }
    }
}
