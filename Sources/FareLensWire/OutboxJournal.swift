import FareLensMessages
import FareLensStore
import Foundation
import GRDB
public import Logging

/// The on-disk copy of the bridge's durable outboxes, so that durable events
/// survive a crash (`kill -9`) of the node holding them: a publisher whose
/// events were not yet acknowledged, or a hub keeping events for a node that
/// is away. A row is written before `publish` returns and deleted when the
/// peer acknowledges it; while it waits, the envelope lives here only (the
/// outbox keeps its tag in memory and reads it back to redeliver). The hub
/// also remembers each node's hello, so after a restart it knows who is away
/// and which topics they want.
///
/// One SQLite file per node (`<dataDir>/bridge-outbox.sqlite`), opened
/// through the same database layer as the services' own
/// (``FareLensStore/ServiceDatabase``): WAL, `synchronous = NORMAL` (a
/// committed row survives a process crash), its log checkpointed off the
/// writer, the schema from named migrations (``migrations``).
public final class OutboxJournal: Sendable {
    private let database: ServiceDatabase
    private var writer: any DatabaseWriter { database.writer }
    private let logger: Logger

    /// Opens (creating if needed) the journal at `path` and applies the
    /// migrations it has not had yet.
    ///
    /// - Throws: ``OutboxJournalError`` naming the file when it cannot be opened.
    public init(path: String, logger: Logger) throws(OutboxJournalError) {
        do {
            database = try ServiceDatabase.open(service: "bridge-outbox", path: path, migrations: Self.migrations)
        } catch {
            throw OutboxJournalError(path: path, reason: String(describing: error), underlying: error)
        }
        self.logger = logger
    }

    /// Records an event sent to `peer` under delivery tag `tag`.
    ///
    /// - Returns: false when the write failed (full disk; logged): the
    ///   caller keeps the event in memory, where it survives only while the
    ///   node runs.
    func record(peer: String, tag: UInt64, envelope: WireEnvelope) -> Bool {
        write("record a durable event") { db in
            try OutboxRecord(peer: peer, tag: tag, envelope: envelope).insert(db, onConflict: .replace)
        }
    }

    /// Forgets acknowledged events.
    func remove(peer: String, tags: [UInt64]) {
        guard !tags.isEmpty else { return }
        write("forget acknowledged events") { db in
            let keys = tags.map { Int64(bitPattern: $0) }
            try OutboxRecord.filter(OutboxRecord.Columns.peer == peer && keys.contains(OutboxRecord.Columns.tag)).deleteAll(db)
        }
    }

    /// Forgets every event for `peer`.
    func removeAll(peer: String) {
        write("forget a peer's events") { db in
            try OutboxRecord.filter(OutboxRecord.Columns.peer == peer).deleteAll(db)
        }
    }

    /// The delivery tags waiting for `peer`, oldest first (what an outbox
    /// keeps in memory after a restart).
    func tags(peer: String) -> [UInt64] {
        do {
            return try writer.read { db in
                try OutboxRecord.filter(OutboxRecord.Columns.peer == peer)
                    .select(OutboxRecord.Columns.tag, as: Int64.self)
                    .order(OutboxRecord.Columns.tag)
                    .fetchAll(db)
                    .map { UInt64(bitPattern: $0) }
            }
        } catch {
            logger.error("cannot read the durable outbox journal; its events are not redelivered", metadata: ["peer": "\(peer)", "error": "\(error)"])
            return []
        }
    }

    /// The envelopes waiting for `peer` with tags in `tags.lowerBound ... tags.upperBound`,
    /// oldest first. A row that cannot be read or decoded is logged and skipped.
    func envelopes(peer: String, tags: ClosedRange<UInt64>) -> [(tag: UInt64, envelope: WireEnvelope)] {
        do {
            let records = try writer.read { db in
                try OutboxRecord.filter(OutboxRecord.Columns.peer == peer)
                    .filter((Int64(bitPattern: tags.lowerBound) ... Int64(bitPattern: tags.upperBound)).contains(OutboxRecord.Columns.tag))
                    .order(OutboxRecord.Columns.tag)
                    .fetchAll(db)
            }
            return records.compactMap { record in
                do {
                    return (record.deliveryTag, try record.decoded())
                } catch {
                    logger.error("a journaled durable event does not decode; it is not redelivered", metadata: ["peer": "\(peer)", "tag": "\(record.deliveryTag)", "error": "\(error)"])
                    return nil
                }
            }
        } catch {
            logger.error("cannot read the durable outbox journal; its events are not redelivered", metadata: ["peer": "\(peer)", "error": "\(error)"])
            return []
        }
    }

    /// Remembers a node's hello (its name, services and wanted topics).
    func remember(_ hello: WireHello) {
        write("remember a node") { db in try KnownPeerRecord(hello).insert(db, onConflict: .replace) }
    }

    /// Forgets a node and every event kept for it.
    func forget(_ name: String) {
        write("forget a node") { db in
            _ = try KnownPeerRecord.deleteOne(db, key: name)
            try OutboxRecord.filter(OutboxRecord.Columns.peer == name).deleteAll(db)
        }
    }

    /// The nodes remembered from earlier runs.
    func knownPeers() -> [WireHello] {
        do {
            let records = try writer.read { db in try KnownPeerRecord.order(KnownPeerRecord.Columns.name).fetchAll(db) }
            return try records.map { try $0.decoded() }
        } catch {
            logger.error("cannot read the known nodes from the outbox journal", metadata: ["error": "\(error)"])
            return []
        }
    }

    @discardableResult
    private func write(_ what: String, _ body: (Database) throws -> Void) -> Bool {
        do {
            try writer.write(body)
            return true
        } catch {
            logger.error("durable outbox journal: cannot \(what); the event is kept in memory only", metadata: ["error": "\(error)"])
            return false
        }
    }
}

/// The outbox journal cannot be opened.
public struct OutboxJournalError: Error, Sendable, CustomStringConvertible {
    /// The journal file.
    public let path: String
    /// Why, from SQLite.
    public let reason: String
    /// The database layer's error (a ``FareLensStore/StoreError``).
    public let underlying: (any Error)?
    public var description: String { "durable outbox journal \(path): \(reason)" }

    public init(path: String, reason: String, underlying: (any Error)? = nil) {
        self.path = path
        self.reason = reason
        self.underlying = underlying
    }
}
