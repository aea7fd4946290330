public import Foundation
public import GRDB

/// The inbox: how a consumer makes an event's effect happen exactly once
/// although durable events are delivered at least once. The consumer
/// records the event's id in its own database in the same transaction as
/// the effect; a redelivery (after a crash between the effect and the
/// acknowledgement, or a lost acknowledgement) finds the id and is skipped.
///
/// The ids a transaction records are kept as one ``InboxBatchRecord`` per
/// publisher, not one row per event (docs/decisions/0013).
extension ServiceDatabase {
    /// Records `keys` for `consumer` inside the caller's transaction, for a
    /// consumer that applies many events in one transaction: the effects
    /// must be written in that same transaction. One row per publisher,
    /// however many keys.
    ///
    /// - Returns: for each key, in order, whether its effect is to be
    ///   applied now: false when `consumer` recorded it in an earlier
    ///   transaction (a redelivery) or it appears earlier in `keys`.
    public static func recordOnce(_ keys: [InboxKey], consumer: String, at date: Date, in db: Database) throws -> [Bool] {
        var fresh = [Bool](repeating: false, count: keys.count)
        var byPublisher: [String: [Int]] = [:]
        for (index, key) in keys.enumerated() { byPublisher[key.publisher, default: []].append(index) }
        let appliedAt = Int64(date.timeIntervalSince1970 * 1000)
        for (publisher, indices) in byPublisher {
            let sequences = indices.map { Int64(bitPattern: keys[$0].sequence) }
            let earlier = try appliedSequences(among: sequences, consumer: consumer, publisher: publisher, in: db)
            var recorded = Set<Int64>(minimumCapacity: sequences.count)
            for (index, sequence) in zip(indices, sequences) where !earlier.contains(sequence) && recorded.insert(sequence).inserted {
                fresh[index] = true
            }
            guard !recorded.isEmpty else { continue }
            try InboxBatchRecord(consumer: consumer, publisher: publisher, sorted: recorded.sorted(), appliedAtUnixMs: appliedAt).insert(db)
        }
        return fresh
    }

    /// Records the event `key` for `consumer` inside the caller's
    /// transaction (``recordOnce(_:consumer:at:in:)-([InboxKey],_,_,_)`` for one key).
    ///
    /// - Returns: false when the event was recorded before (a redelivery: skip its effect).
    public static func recordOnce(_ key: InboxKey, consumer: String, at date: Date, in db: Database) throws -> Bool {
        try recordOnce([key], consumer: consumer, at: date, in: db)[0]
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

    /// Whether `consumer` has applied the event `key`.
    public func hasApplied(_ key: InboxKey, consumer: String) throws -> Bool {
        try writer.read { db in
            let sequence = Int64(bitPattern: key.sequence)
            return try !Self.appliedSequences(among: [sequence], consumer: consumer, publisher: key.publisher, in: db).isEmpty
        }
    }

    /// How many events `consumer` (every consumer when nil) has recorded and not yet pruned.
    public static func appliedEventCount(consumer: String? = nil, in db: Database) throws -> Int {
        guard let consumer else { return try eventCount(where: "1", [], in: db) }
        return try eventCount(where: "consumer = ?", [consumer], in: db)
    }

    /// The events held by the rows that `condition` (SQL, with `arguments`) selects.
    private static func eventCount(where condition: String, _ arguments: StatementArguments, in db: Database) throws -> Int {
        let sql = "SELECT COALESCE(SUM(length(sequences)), 0) / \(InboxSequences.width) FROM inbox_batch WHERE \(condition)"
        return try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
    }

    /// Forgets events applied before `date`. Keep them longer than any
    /// event can wait to be redelivered (an away node's backlog).
    ///
    /// - Returns: how many events were forgotten.
    @discardableResult
    public func pruneInbox(appliedBefore date: Date) throws(StoreError) -> Int {
        try write { db in try Self.pruneInbox(appliedBeforeUnixMs: Int64(date.timeIntervalSince1970 * 1000), in: db) }
    }

    /// ``pruneInbox(appliedBefore:)`` inside the caller's transaction, the cut-off in Unix epoch milliseconds.
    @discardableResult
    public static func pruneInbox(appliedBeforeUnixMs cutoff: Int64, in db: Database) throws -> Int {
        let forgotten = try eventCount(where: "appliedAtUnixMs < ?", [cutoff], in: db)
        try InboxBatchRecord.filter(Column("appliedAtUnixMs") < cutoff).deleteAll(db)
        return forgotten
    }

    /// Those of `sequences` that `consumer` recorded from `publisher` in
    /// earlier transactions: the rows whose range overlaps theirs, found
    /// through the `(consumer, publisher, lastSequence)` key.
    static func appliedSequences(among sequences: [Int64], consumer: String, publisher: String, in db: Database) throws -> Set<Int64> {
        guard let low = sequences.min(), let high = sequences.max() else { return [] }
        var applied = Set<Int64>()
        let statement = try db.cachedStatement(sql: """
            SELECT firstSequence, lastSequence, sequences FROM inbox_batch
            WHERE consumer = ? AND publisher = ? AND lastSequence >= ? AND firstSequence <= ?
            """)
        let rows = try Row.fetchCursor(statement, arguments: [consumer, publisher, low, high])
        while let row = try rows.next() {
            let first: Int64 = row[0]
            let last: Int64 = row[1]
            let stored: Data = row[2]
            for sequence in sequences where sequence >= first && sequence <= last && InboxSequences.contains(stored, sequence) {
                applied.insert(sequence)
            }
        }
        return applied
    }
}

extension ServiceMigrations {
    /// Registers the inbox's migrations, in order: `store-v1-inbox` (the
    /// first table, a row per event) and `store-v2-inbox-batches` (a row per
    /// transaction and publisher, carrying over the events recorded in the
    /// first). The runtime registers them for every service database,
    /// before the service's own migrations.
    public mutating func registerInbox() {
        register(ServiceDatabase.inboxMigrationName, ServiceDatabase.migrateInboxV1)
        register(ServiceDatabase.inboxBatchesMigrationName, ServiceDatabase.migrateInboxToBatches)
    }
}

extension ServiceDatabase {
    /// The first inbox migration's name.
    public static let inboxMigrationName = "store-v1-inbox"
    /// The second inbox migration's name.
    public static let inboxBatchesMigrationName = "store-v2-inbox-batches"

    /// `store-v1-inbox`, as shipped: the table `inbox_event`, a row per event.
    @Sendable static func migrateInboxV1(_ db: Database) throws {
        try db.create(table: "inbox_event") { table in
            table.column("consumer", .text).notNull()
            table.column("publisher", .text).notNull()
            table.column("sequence", .integer).notNull()
            table.column("appliedAtUnixMs", .integer).notNull().indexed()
            table.primaryKey(["consumer", "publisher", "sequence"])
        }
    }

    /// `store-v2-inbox-batches`: creates `inbox_batch`, moves every event
    /// of `inbox_event` into it (one row per consumer, publisher and
    /// applied-at millisecond: the transactions that recorded them), and
    /// drops `inbox_event`.
    @Sendable static func migrateInboxToBatches(_ db: Database) throws {
        try db.create(table: InboxBatchRecord.databaseTableName) { table in
            table.column("consumer", .text).notNull()
            table.column("publisher", .text).notNull()
            table.column("firstSequence", .integer).notNull()
            table.column("lastSequence", .integer).notNull()
            table.column("sequences", .blob).notNull()
            table.column("appliedAtUnixMs", .integer).notNull().indexed()
            table.uniqueKey(["consumer", "publisher", "lastSequence"])
        }
        // Streamed in order, one group at a time: the old table may be large.
        var group: (consumer: String, publisher: String, appliedAt: Int64)?
        var sequences: [Int64] = []
        func flush() throws {
            guard let group, !sequences.isEmpty else { return }
            try InboxBatchRecord(consumer: group.consumer, publisher: group.publisher, sorted: sequences, appliedAtUnixMs: group.appliedAt).insert(db)
            sequences.removeAll(keepingCapacity: true)
        }
        let rows = try Row.fetchCursor(db, sql: "SELECT consumer, publisher, sequence, appliedAtUnixMs FROM inbox_event ORDER BY consumer, publisher, appliedAtUnixMs, sequence")
        while let row = try rows.next() {
            let key = (consumer: row[0] as String, publisher: row[1] as String, appliedAt: row[3] as Int64)
            if group.map({ $0 != key }) ?? true {
                try flush()
                group = key
            }
            sequences.append(row[2])
        }
        try flush()
        try db.drop(table: "inbox_event")
    }
}
