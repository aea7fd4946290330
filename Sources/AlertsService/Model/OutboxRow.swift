import FareLensMessages
import Foundation
import GRDB

/// One alert waiting for (or done with) one channel, as the `outbox` table
/// keeps it (migration `alerts-001-decisions`). Written in the same
/// transaction as the `SENT` decision, so an accepted alert survives a
/// crash; its `body` is fixed then, so every attempt and every replay sends
/// the same bytes under the same id.
struct OutboxRow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "outbox"

    /// Where the row stands.
    enum Status: Int, Codable, Sendable {
        case pending = 1
        case delivered = 2
        case deadLettered = 3
        /// The endpoint answered 410 and is disabled.
        case endpointDisabled = 4
        /// Re-checked as stale before delivery: never sent.
        case droppedStale = 5
        /// Push only: the device is gone (APNs said so, or it was
        /// unregistered before the attempt). Finished; not replayed.
        case deviceRemoved = 6
    }

    var alertID: String
    /// `AlertChannel` raw value.
    var channel: Int
    var userID: String
    var kind: Int
    var body: Data
    var status: Status
    var attempts: Int
    var nextAttemptAtUnixMs: Int64
    var lastError: String
    var createdAtUnixMs: Int64
    var finishedAtUnixMs: Int64
    /// Attempts that left without an answer (``DeliveryOutcome/uncertain(reason:)``):
    /// the receiver may have the alert (migration `alerts-006-uncertain-attempts`).
    var uncertainAttempts: Int = 0
    /// Where on the channel: the device token for push (one row per alert
    /// and device), empty for the webhook and the log (migration
    /// `alerts-008-outbox-per-device`).
    var address: String = ""

    var channelValue: AlertChannel { AlertChannel(rawValue: channel) ?? .unspecified }

    /// Where one row's delivery stands: what ``DeliverySummary`` needs of it.
    struct Outcome: Sendable, Equatable {
        var status: Status
        var attempts: Int
        var lastError: String
        var finishedAtUnixMs: Int64
        var uncertainAttempts: Int = 0
    }

    var outcome: Outcome {
        Outcome(status: status, attempts: attempts, lastError: lastError, finishedAtUnixMs: finishedAtUnixMs, uncertainAttempts: uncertainAttempts)
    }

    /// The outcomes of each of `alertIDs`' rows, in channel order, read
    /// without their bodies and with one statement: every delivery pass
    /// reads them for each alert it attempted (up to 256), and whole rows
    /// carried the payload. An alert without rows is absent.
    static func outcomes(ofAlerts alertIDs: [String], in db: Database) throws -> [String: [Outcome]] {
        let statement = try db.cachedStatement(sql: """
            SELECT alertID, status, attempts, lastError, finishedAtUnixMs, uncertainAttempts FROM outbox
            WHERE alertID IN (SELECT value FROM json_each(?)) ORDER BY alertID, channel, address
            """)
        var outcomes: [String: [Outcome]] = [:]
        let rows = try Row.fetchCursor(statement, arguments: [JSONText.array(alertIDs)])
        while let row = try rows.next() {
            let alertID: String = row[0]
            let raw: Int = row[1]
            guard let status = Status(rawValue: raw) else { throw AlertsError.storage("outbox row of \(alertID) has an unknown status \(raw)") }
            outcomes[alertID, default: []].append(Outcome(status: status, attempts: row[2], lastError: row[3], finishedAtUnixMs: row[4], uncertainAttempts: row[5]))
        }
        return outcomes
    }

    /// Each alert's row by row delivery (channel, device, state, attempts,
    /// error), in channel and address order, for the history; read without
    /// the bodies and with one statement. An alert without rows is absent.
    static func deliveries(ofAlerts alertIDs: [String], in db: Database) throws -> [String: [AlertDeliveryRecord]] {
        let statement = try db.cachedStatement(sql: """
            SELECT alertID, channel, address, status, attempts, lastError, finishedAtUnixMs, uncertainAttempts FROM outbox
            WHERE alertID IN (SELECT value FROM json_each(?)) ORDER BY alertID, channel, address
            """)
        var deliveries: [String: [AlertDeliveryRecord]] = [:]
        let rows = try Row.fetchCursor(statement, arguments: [JSONText.array(alertIDs)])
        while let row = try rows.next() {
            var record = AlertDeliveryRecord()
            record.channel = AlertChannel(rawValue: row[1]) ?? .unspecified
            record.deviceToken = row[2]
            let uncertain: Int = row[7]
            record.state = switch Status(rawValue: row[3]) {
            case .pending: .pending
            case .delivered: .delivered
            case .deadLettered: uncertain > 0 ? .maybeDelivered : .deadLettered
            case .endpointDisabled: .endpointDisabled
            case .droppedStale: .droppedStale
            case .deviceRemoved: .deviceRemoved
            case nil: .unspecified
            }
            record.attempts = row[4]
            record.error = row[5]
            record.finishedAtUnixMs = row[6]
            deliveries[row[0], default: []].append(record)
        }
        return deliveries
    }

    /// Migration `alerts-006-uncertain-attempts`: each row counts the
    /// attempts that left without an answer, so a dead letter the receiver
    /// may have is not reported as never sent.
    static func migrateUncertainAttempts(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "uncertainAttempts", .integer).notNull().defaults(to: 0)
        }
    }

    /// Migration `alerts-008-outbox-per-device`: an `address` column in the
    /// primary key, so that one push alert has a row (and its own attempts,
    /// retries and outcome) per device. SQLite cannot change a primary key
    /// in place: the table is rebuilt, every row kept with an empty address.
    static func migrateAddress(_ db: Database) throws {
        try db.create(table: "outbox_new") { table in
            table.column("alertID", .text).notNull()
            table.column("channel", .integer).notNull()
            table.column("address", .text).notNull().defaults(to: "")
            table.column("userID", .text).notNull()
            table.column("kind", .integer).notNull()
            table.column("body", .blob).notNull()
            table.column("status", .integer).notNull()
            table.column("attempts", .integer).notNull()
            table.column("nextAttemptAtUnixMs", .integer).notNull()
            table.column("lastError", .text).notNull()
            table.column("createdAtUnixMs", .integer).notNull()
            table.column("finishedAtUnixMs", .integer).notNull()
            table.column("uncertainAttempts", .integer).notNull().defaults(to: 0)
            table.primaryKey(["alertID", "channel", "address"])
        }
        try db.execute(sql: """
            INSERT INTO outbox_new (alertID, channel, address, userID, kind, body, status, attempts, nextAttemptAtUnixMs, lastError,
                                    createdAtUnixMs, finishedAtUnixMs, uncertainAttempts)
            SELECT alertID, channel, '', userID, kind, body, status, attempts, nextAttemptAtUnixMs, lastError,
                   createdAtUnixMs, finishedAtUnixMs, uncertainAttempts FROM outbox
            """)
        try db.drop(table: databaseTableName)
        try db.rename(table: "outbox_new", to: databaseTableName)
        try db.create(index: "outbox_due", on: databaseTableName, columns: ["nextAttemptAtUnixMs"], condition: Column("status") == Status.pending.rawValue)
    }

    /// The table, created by migration `alerts-001-decisions`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("alertID", .text).notNull()
            table.column("channel", .integer).notNull()
            table.column("userID", .text).notNull()
            table.column("kind", .integer).notNull()
            table.column("body", .blob).notNull()
            table.column("status", .integer).notNull()
            table.column("attempts", .integer).notNull()
            table.column("nextAttemptAtUnixMs", .integer).notNull()
            table.column("lastError", .text).notNull()
            table.column("createdAtUnixMs", .integer).notNull()
            table.column("finishedAtUnixMs", .integer).notNull()
            table.primaryKey(["alertID", "channel"])
        }
        try db.create(index: "outbox_due", on: databaseTableName, columns: ["nextAttemptAtUnixMs"], condition: Column("status") == Status.pending.rawValue)
    }
}
