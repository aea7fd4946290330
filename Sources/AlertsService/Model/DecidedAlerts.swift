import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensStore
import Foundation
import GRDB

/// `AlertDecided` is published from the `alert` table itself: each row a
/// transaction inserts (or re-decides, `STALE_PRICE`) gets the next
/// **decision sequence** as its rowid, and the alerts service's
/// ``FareLensRuntime/EventOutbox`` publishes the rows after the last
/// settled sequence, from memory while it keeps up and from the table
/// after a restart. A crash between a decision's commit and its
/// `AlertDecided` therefore publishes it on the next start, under the same
/// id (`alerts.outbox#<instance>/<sequence>`), and analytics' inbox
/// applies it once; and a decision writes nothing more than its row
/// (docs/alerts.md, "AlertDecided, from the decisions themselves").
///
/// Its one row, `alert_decided_relay` (migration `alerts-005-decided-outbox`),
/// holds the instance, the next sequence and the last settled one. The
/// next sequence is kept there rather than taken from the rowids: a
/// user's erasure or retention may delete the newest rows, and SQLite would
/// give their rowids again.
struct DecidedAlertsStore: EventOutboxStore {
    let database: ServiceDatabase

    static let tableName = "alert_decided_relay"

    /// Creates the relay's row: a random instance, and every existing
    /// decision counted as published (it was, by the build before, or lost
    /// with that build's queue).
    static func migrate(_ db: Database) throws {
        try db.create(table: tableName) { table in
            table.column("instance", .text).notNull()
            table.column("nextSequence", .integer).notNull()
            table.column("settledThrough", .integer).notNull()
        }
        let last = try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(rowid), 0) FROM alert") ?? 0
        try db.execute(
            sql: "INSERT INTO \(tableName) (instance, nextSequence, settledThrough) VALUES (?, ?, ?)",
            arguments: [EventOutboxIdentity.newInstance(), last + 1, last])
    }

    func instance() async throws(StoreError) -> String {
        try await read { db in try String.fetchOne(db, sql: "SELECT instance FROM \(Self.tableName)") }
    }

    func settledThrough() async throws(StoreError) -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT settledThrough FROM \(Self.tableName)") }
    }

    func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [OutboxEvent] {
        let rows = try await database.awaitedRead { db in
            try Row.fetchAll(db, sql: "SELECT rowid AS decisionSequence, * FROM alert WHERE rowid > ? ORDER BY rowid LIMIT ?", arguments: [sequence, limit])
                .map { row in (sequence: row["decisionSequence"] as Int64, alert: try AlertRow(row: row)) }
        }
        let (trace, alerts) = (TraceID.random(), rows.map(\.alert))
        return rows.indices.map { Self.event(alerts, index: $0, sequence: rows[$0].sequence, trace: trace) }
    }

    func forget(through sequence: Int64) async throws(StoreError) {
        try await database.awaitedWrite { db in
            try db.execute(sql: "UPDATE \(Self.tableName) SET settledThrough = MAX(settledThrough, ?)", arguments: [sequence])
        }
    }

    /// `alerts[index]`'s `AlertDecided`, published under `sequence` with
    /// `trace`: the decisions of one transaction, or of one read after a
    /// restart, share one (a random trace id is a `getrandom` call, 3% of
    /// the held decisions' CPU when drawn for each). It keeps the whole
    /// array, not a copy of its row: a row's copy retained its dozen strings.
    static func event(_ alerts: [AlertRow], index: Int, sequence: Int64, trace: TraceID) -> OutboxEvent {
        OutboxEvent(sequence: sequence, traceID: trace, typeName: AlertDecided.wireTypeName) {
            var event = AlertDecided()
            event.alert = alerts[index].message
            return event
        }
    }

    /// `body`'s value, which nil means the migration is missing.
    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T?) async throws(StoreError) -> T {
        guard let value = try await database.awaitedRead(body) else { throw Self.missingRow(database.path) }
        return value
    }

    /// The relay's row is missing: the migration did not run.
    static func missingRow(_ path: String?) -> StoreError {
        StoreError.migrationFailed(path ?? ":memory:", "no \(tableName) row (migration alerts-005-decided-outbox not run)")
    }
}

/// The decision sequences one write transaction gives out: read from
/// `alert_decided_relay` at its start, saved at its end, so a rollback gives
/// none out and committed transactions' sequences follow each other.
struct DecisionSequences {
    /// The first this transaction gave.
    let first: Int64
    /// The next it gives.
    private(set) var next: Int64

    /// - Throws: ``FareLensStore/StoreError`` `migration-failed` without the
    ///   relay's row (numbering from 1 would reuse rowids); SQLite's error otherwise.
    init(in db: Database) throws {
        guard let next = try Int64.fetchOne(db.cachedStatement(sql: "SELECT nextSequence FROM \(DecidedAlertsStore.tableName)")) else {
            throw DecidedAlertsStore.missingRow(db.configuration.label)
        }
        self.first = next
        self.next = next
    }

    /// How many it gave.
    var count: Int { Int(next - first) }

    /// The next sequence.
    mutating func take() -> Int64 {
        defer { next += 1 }
        return next
    }

    /// Saves the next sequence, and hands `rows` (one per sequence given,
    /// in order) to `outbox`, to be published once the transaction commits.
    func save(announcing rows: [AlertRow], to outbox: EventOutbox, in db: Database) throws {
        precondition(rows.count == count, "one row per decision sequence")
        guard count > 0 else { return }
        try db.cachedStatement(sql: "UPDATE \(DecidedAlertsStore.tableName) SET nextSequence = ?").execute(arguments: [next])
        let (first, trace) = (self.first, TraceID.random())
        outbox.committed(first: first, count: count, in: db) { index in DecidedAlertsStore.event(rows, index: index, sequence: first + Int64(index), trace: trace) }
    }
}
