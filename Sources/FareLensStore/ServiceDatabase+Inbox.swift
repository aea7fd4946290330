public import Foundation
public import GRDB

/// The inbox: how a consumer makes an event's effect happen exactly once
/// although durable events are delivered at least once. The consumer
/// records the event's id in its own database in the same transaction as
/// the effect; a redelivery (after a crash between the effect and the
/// acknowledgement, or a lost acknowledgement) finds the id and is skipped.
extension ServiceDatabase {
    /// The migration that creates the inbox table; the runtime applies it to
    /// every service database.
    public static let inboxMigrationName = "store-v1-inbox"

    /// Creates the `inbox_event` table.
    @Sendable public static func migrateInbox(_ db: Database) throws {
        try db.create(table: InboxRecord.databaseTableName) { table in
            table.column("consumer", .text).notNull()
            table.column("publisher", .text).notNull()
            table.column("sequence", .integer).notNull()
            table.column("appliedAtUnixMs", .integer).notNull().indexed()
            table.primaryKey(["consumer", "publisher", "sequence"])
        }
    }

    /// Applies `effect` for the event `key` unless `consumer` already has,
    /// recording it in the same transaction: both happen, or neither does.
    ///
    /// - Returns: the effect's result, or nil when the event was applied
    ///   before (a redelivery; nothing is written).
    /// - Throws: ``StoreError`` when the write fails (the effect is rolled
    ///   back with it, so a later redelivery applies it).
    public func applyOnce<T: Sendable>(
        _ key: InboxKey, consumer: String, at date: Date = Date(),
        _ effect: @Sendable (Database) throws -> T
    ) throws(StoreError) -> T? {
        try write { db -> T? in
            guard try Self.recordOnce(key, consumer: consumer, at: date, in: db) else { return nil }
            return try effect(db)
        }
    }

    /// Records the event `key` for `consumer` inside the caller's
    /// transaction, for a consumer that applies many events in one
    /// transaction: the effects must be written in that same transaction.
    ///
    /// - Returns: false when the event was recorded before (a redelivery: skip its effect).
    public static func recordOnce(_ key: InboxKey, consumer: String, at date: Date, in db: Database) throws -> Bool {
        // A cached statement bound through SQLite's C interface rather than the record's insert: batch consumers record 100 k per second.
        let changed = try db.cachedStatement(sql: "INSERT OR IGNORE INTO inbox_event (consumer, publisher, sequence, appliedAtUnixMs) VALUES (?, ?, ?, ?)")
            .executeBinding { values in
                values.bind(consumer)
                values.bind(key.publisher)
                values.bind(Int64(bitPattern: key.sequence))
                values.bind(Int64(date.timeIntervalSince1970 * 1000))
            }
        return changed > 0
    }

    /// Whether `consumer` has applied the event `key`.
    public func hasApplied(_ key: InboxKey, consumer: String) throws -> Bool {
        try writer.read { db in
            try InboxRecord.exists(db, key: ["consumer": consumer, "publisher": key.publisher, "sequence": Int64(bitPattern: key.sequence)])
        }
    }

    /// Forgets events applied before `date`. Keep them longer than any
    /// event can wait to be redelivered (an away node's backlog).
    ///
    /// - Returns: how many were forgotten.
    @discardableResult
    public func pruneInbox(appliedBefore date: Date) throws(StoreError) -> Int {
        let cutoff = Int64(date.timeIntervalSince1970 * 1000)
        return try write { db in
            try InboxRecord.filter(Column("appliedAtUnixMs") < cutoff).deleteAll(db)
        }
    }
}
