import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging
import Synchronization

/// `AlertDecided` is published from the `alert` table itself: each row a
/// transaction inserts (or re-decides, `STALE_PRICE`) gets the next
/// **decision sequence** as its rowid, and the alerts service's
/// ``FareLensServiceKit/EventOutbox`` publishes the rows after the last
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
///
/// The last settled sequence is not written when the relay settles it
/// (``forget(through:)``) but by the next transaction that gives out
/// sequences, in the statement that saves the next sequence
/// (``DecisionSequences/save(announcing:to:in:)``): one write transaction
/// fewer per batch on the database's single writer, the held decisions'
/// critical path. What a crash or stop finds unwritten — the batches settled
/// since the last decision transaction — is published again by the next
/// run under the same ids, as events settled but not yet recorded always were.
struct DecidedAlertsStore: EventOutboxStore {
    let database: ServiceDatabase
    /// The highest sequence the relay settled, until a transaction writes it.
    let settled: SettledDecisions

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

    /// Marks every event through `sequence` settled, in memory: the next
    /// transaction that gives out decision sequences records it.
    func forget(through sequence: Int64) async throws(StoreError) {
        settled.raise(to: sequence)
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

    /// Saves the next sequence and the relay's last settled one
    /// (``DecidedAlertsStore/forget(through:)``), and hands `rows` (one per
    /// sequence given, in order) to `outbox`, to be published once the
    /// transaction commits.
    func save(announcing rows: [AlertRow], to outbox: DecidedAlerts, in db: Database) throws {
        precondition(rows.count == count, "one row per decision sequence")
        guard count > 0 else { return }
        try db.cachedStatement(sql: "UPDATE \(DecidedAlertsStore.tableName) SET nextSequence = ?, settledThrough = MAX(settledThrough, ?)")
            .execute(arguments: [next, outbox.settled.highest])
        let (first, trace) = (self.first, TraceID.random())
        outbox.relay.committed(first: first, count: count, in: db) { index in DecidedAlertsStore.event(rows, index: index, sequence: first + Int64(index), trace: trace) }
    }
}

/// The highest decision sequence the relay has settled, kept in memory
/// until a decision transaction records it (``DecidedAlertsStore``).
final class SettledDecisions: Sendable {
    private let mark = Mutex<Int64>(0)

    /// The highest sequence settled so far (0 before any).
    var highest: Int64 { mark.withLock { $0 } }

    /// Every sequence through `sequence` is settled.
    func raise(to sequence: Int64) {
        mark.withLock { $0 = max($0, sequence) }
    }
}

/// `AlertDecided`'s relay and what it has settled: what a transaction
/// that gives out decision sequences announces its rows to.
struct DecidedAlerts: Sendable {
    /// Publishes the rows once their transaction commits.
    let relay: EventOutbox
    /// Written by the next transaction that gives out sequences.
    let settled: SettledDecisions

    /// The relay over `database`'s decisions, publishing on `bus`; its backoffs wait on `transport`.
    init(database: ServiceDatabase, bus: MessageBus, batchSize: Int, transport: TransportClock, logger: Logger) {
        settled = SettledDecisions()
        relay = EventOutbox(
            owner: "alerts", store: DecidedAlertsStore(database: database, settled: settled), bus: bus, batchSize: batchSize, transport: transport, logger: logger)
    }

    /// Runs the relay until cancelled (``FareLensServiceKit/EventOutbox/run()``).
    func run() async {
        await relay.run()
    }
}
