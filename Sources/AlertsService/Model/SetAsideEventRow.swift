import Foundation
import GRDB

/// An event whose decisions could not be recorded for a reason in its data
/// (a constraint, a value too big), as the `set_aside_event` table keeps it
/// (migration `alerts-003-set-aside-events`). It is in the inbox as applied,
/// so it is not tried again and does not hold up its topic; its candidates
/// were not decided. No user id is kept: the row names the event, and the
/// log line the same.
struct SetAsideEventRow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "set_aside_event"

    /// The event's publisher and sequence (its ``FareLensStore/InboxKey``).
    var publisher: String
    var sequence: Int64
    /// The inbox consumer: which input topic it came from.
    var consumer: String
    /// How many candidates it had.
    var candidates: Int
    /// SQLite's result code and message, or the error's description.
    var error: String
    var setAsideAtUnixMs: Int64

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("publisher", .text).notNull()
            table.column("sequence", .integer).notNull()
            table.column("consumer", .text).notNull()
            table.column("candidates", .integer).notNull()
            table.column("error", .text).notNull()
            table.column("setAsideAtUnixMs", .integer).notNull()
            table.primaryKey(["publisher", "sequence", "consumer"])
        }
    }
}
