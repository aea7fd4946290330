import GRDB

/// One event another service published, as the `service_event` table keeps
/// it (migration `analytics-001-events`): raw, for 90 days, its payload as
/// protobuf JSON with every `userId` removed and the user carried only as a
/// pseudonym. High-volume market data (observed fares, scored deals) is
/// counted per day in `daily_rollup` instead (docs/analytics.md).
struct ServiceEventRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "service_event"

    var id: Int64?
    /// The bus event id: publisher and sequence.
    var publisher: String
    var sequence: Int64
    var topic: String
    /// The event's own time when it carries one, else the receive time.
    var atUnixMs: Int64
    var day: Int
    /// The user it is about, pseudonymised; nil when it is about no user.
    var pseudonym: String?
    /// Protobuf JSON without user ids.
    var payloadJSON: String

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Appends the row through a cached statement (its `id` is the table's
    /// next): every event kept raw is one, and the record's own `insert`
    /// encoded it through `Encodable` into a dictionary first, 5.7% of the
    /// node's CPU under the gateway's cached search (docs/performance.md).
    func append(in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO service_event (publisher, sequence, topic, atUnixMs, day, pseudonym, payloadJSON) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
            .execute(arguments: [publisher, sequence, topic, atUnixMs, day, pseudonym, payloadJSON])
    }

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.autoIncrementedPrimaryKey("id")
            table.column("publisher", .text).notNull()
            table.column("sequence", .integer).notNull()
            table.column("topic", .text).notNull()
            table.column("atUnixMs", .integer).notNull().indexed()
            table.column("day", .integer).notNull()
            table.column("pseudonym", .text).indexed()
            table.column("payloadJSON", .text).notNull()
        }
    }
}
