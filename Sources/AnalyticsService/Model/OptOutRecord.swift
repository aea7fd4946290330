import GRDB

/// A user who opted out, as the `opt_out` table keeps them (migration
/// `analytics-001-events`): by pseudonym only, kept until they opt back in or
/// their account is deleted. Delete-my-data keeps it, so erasing one's data
/// never turns recording back on.
struct OptOutRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "opt_out"

    var pseudonym: String
    var optedOutAtUnixMs: Int64

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("pseudonym", .text).primaryKey()
            table.column("optedOutAtUnixMs", .integer).notNull()
        }
    }
}
