import FareLensMessages
import Foundation
import GRDB

/// An event whose decisions could not be recorded for a reason in its data
/// (a constraint, a value too big), as the `set_aside_event` table keeps it
/// (migrations `alerts-003-set-aside-events`, `alerts-004-set-aside-content`).
/// It is in the inbox as applied, so it is not tried again by itself and
/// does not hold up its topic; its candidates were not decided. Its content
/// is kept so that an operator can retry it (``AlertsService/retrySetAside(_:)``);
/// a user's row is erased with the user's data and every row after the
/// retention period, as the content may name the user.
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
    /// The event's user, for the erasure of a deleted user's data; empty
    /// for an exceptional deal (its users are asked of subscription again
    /// when it is retried).
    var userID: String = ""
    /// The event in its wire encoding; its type is the consumer's input
    /// (``AlertsService/decisionInputType(ofConsumer:)``). Empty for rows
    /// set aside before `alerts-004`: those cannot be retried.
    var payload: Data = Data()

    var isRetriable: Bool { !payload.isEmpty }

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

    /// Migration `alerts-004-set-aside-content`: the event's content and user, so it can be retried and erased.
    static func migrateContent(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "userID", .text).notNull().defaults(to: "")
            table.add(column: "payload", .blob).notNull().defaults(to: Data())
        }
    }

    /// Whether `key` (publisher and sequence, as an operator names an event) names this row.
    func isNamed(by key: SetAsideEventKey) -> Bool {
        publisher == key.publisher && UInt64(bitPattern: sequence) == key.sequence
    }

    /// The row as its request answers it.
    var message: SetAsideEvent {
        var event = SetAsideEvent()
        event.publisher = publisher
        event.sequence = UInt64(bitPattern: sequence)
        event.consumer = consumer
        event.candidates = Int32(clamping: candidates)
        event.error = error
        event.setAsideAtUnixMs = setAsideAtUnixMs
        event.retriable = isRetriable
        return event
    }
}
