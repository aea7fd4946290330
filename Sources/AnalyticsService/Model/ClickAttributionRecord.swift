import GRDB

/// An attribution sub-id that at least one affiliate click carried, as the
/// `click_attribution` table keeps it (migration `analytics-001-events`):
/// what a commission notification is matched against. No user id (a sub-id
/// names a deal, a watchlist, a placement, a variant and a tier); kept for
/// good, since commissions arrive long after clicks.
struct ClickAttributionRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "click_attribution"

    var subID: String
    var clicks: Int64
    var firstClickDay: Int
    var lastClickDay: Int

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("subID", .text).primaryKey()
            table.column("clicks", .integer).notNull()
            table.column("firstClickDay", .integer).notNull()
            table.column("lastClickDay", .integer).notNull()
        }
    }
}
