import GRDB

/// One client event as the `client_event` table keeps it (migration
/// `analytics-001-events`): raw, for 90 days, under the user's pseudonym,
/// never the user id. The primary key is the app's `client_event_id`, so a
/// repeat is recorded once.
struct ClientEventRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "client_event"

    var clientEventID: String
    /// `p{version}:{hex}` (``PseudonymKeyring``).
    var pseudonym: String
    /// `ClientEventKind` raw value.
    var kind: Int
    /// When it happened (the device's time; the receive time when the app sent none).
    var occurredAtUnixMs: Int64
    /// Its UTC day, days since 1970-01-01 (what the roll-ups are keyed by).
    var day: Int
    var receivedAtUnixMs: Int64
    var dealID: String
    var watchlistID: String
    var alertID: String
    var offerID: String
    var provider: String
    /// `BookingPlacement` raw value.
    var placement: Int
    var abVariant: String
    /// `Tier` raw value.
    var tier: Int
    var subID: String
    var errorCode: String
    /// `properties` as a JSON object (sorted keys); "{}" when none.
    var propertiesJSON: String

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("clientEventID", .text).primaryKey()
            table.column("pseudonym", .text).notNull().indexed()
            table.column("kind", .integer).notNull()
            table.column("occurredAtUnixMs", .integer).notNull().indexed()
            table.column("day", .integer).notNull()
            table.column("receivedAtUnixMs", .integer).notNull()
            table.column("dealID", .text).notNull()
            table.column("watchlistID", .text).notNull()
            table.column("alertID", .text).notNull()
            table.column("offerID", .text).notNull()
            table.column("provider", .text).notNull()
            table.column("placement", .integer).notNull()
            table.column("abVariant", .text).notNull()
            table.column("tier", .integer).notNull()
            table.column("subID", .text).notNull()
            table.column("errorCode", .text).notNull()
            table.column("propertiesJSON", .text).notNull()
        }
    }
}
