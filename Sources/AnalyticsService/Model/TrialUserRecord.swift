import GRDB

/// A user whose trial started, as the `trial_user` table keeps them
/// (migration `analytics-001-events`), by pseudonym: what lets a later
/// `TierChanged` to Pro count as a conversion of the right week. Kept until
/// the user's data is deleted (a conversion may come long after the 90 days
/// raw events are kept); the counts themselves live in `daily_rollup`.
struct TrialUserRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "trial_user"

    var pseudonym: String
    /// The trial's start, UTC day (days since 1970-01-01).
    var startDay: Int
    /// ISO week of the start, e.g. "2026-W09".
    var week: String
    /// The UTC day the user first became Pro after it; nil until then.
    var convertedDay: Int?

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("pseudonym", .text).primaryKey()
            table.column("startDay", .integer).notNull()
            table.column("week", .text).notNull()
            table.column("convertedDay", .integer)
        }
    }
}
