import FareLensMessages
import Foundation
import GRDB
public import Logging
import SwiftProtobuf

/// The on-disk copy of the bridge's durable outboxes, so that durable events
/// survive a crash (`kill -9`) of the node holding them: a publisher whose
/// events were not yet acknowledged, or a hub keeping events for a node that
/// is away. A row is written before `publish` returns and deleted when the
/// peer acknowledges it. The hub also remembers each node's hello, so after
/// a restart it knows who is away and which topics they want.
///
/// One SQLite file per node (`<dataDir>/bridge-outbox.sqlite`), WAL,
/// `synchronous = NORMAL`: a committed row survives a process crash.
public final class OutboxJournal: Sendable {
    private let queue: DatabaseQueue
    private let logger: Logger

    /// Opens (creating if needed) the journal at `path`.
    ///
    /// - Throws: ``OutboxJournalError`` naming the file when it cannot be opened.
    public init(path: String, logger: Logger) throws(OutboxJournalError) {
        do {
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try queue.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS outbox (peer TEXT NOT NULL, tag INTEGER NOT NULL, envelope BLOB NOT NULL, PRIMARY KEY (peer, tag));
                    CREATE TABLE IF NOT EXISTS known_peer (name TEXT PRIMARY KEY, hello BLOB NOT NULL);
                    """)
            }
        } catch {
            throw OutboxJournalError(path: path, reason: String(describing: error))
        }
        self.logger = logger
    }

    /// Records an event sent to `peer` under delivery tag `tag`.
    /// A failed write (full disk) is logged: the event is still delivered
    /// while the node runs, but would not survive a crash.
    func record(peer: String, tag: UInt64, envelope: WireEnvelope) {
        write("record a durable event") { db in
            try db.execute(sql: "INSERT OR REPLACE INTO outbox (peer, tag, envelope) VALUES (?, ?, ?)",
                           arguments: [peer, Int64(bitPattern: tag), try envelope.serializedBytes() as Data])
        }
    }

    /// Forgets acknowledged events.
    func remove(peer: String, tags: [UInt64]) {
        guard !tags.isEmpty else { return }
        write("forget acknowledged events") { db in
            for tag in tags {
                try db.execute(sql: "DELETE FROM outbox WHERE peer = ? AND tag = ?", arguments: [peer, Int64(bitPattern: tag)])
            }
        }
    }

    /// Forgets every event for `peer`.
    func removeAll(peer: String) {
        write("forget a peer's events") { db in try db.execute(sql: "DELETE FROM outbox WHERE peer = ?", arguments: [peer]) }
    }

    /// The events waiting for `peer`, oldest first.
    func entries(peer: String) -> [(tag: UInt64, envelope: WireEnvelope)] {
        do {
            let rows = try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT tag, envelope FROM outbox WHERE peer = ? ORDER BY tag", arguments: [peer])
                    .map { row -> (Int64, Data) in (row["tag"], row["envelope"]) }
            }
            return try rows.map { tag, data in (UInt64(bitPattern: tag), try WireEnvelope(serializedBytes: data)) }
        } catch {
            logger.error("cannot read the durable outbox journal; its events are not redelivered", metadata: ["peer": "\(peer)", "error": "\(error)"])
            return []
        }
    }

    /// Remembers a node's hello (its name, services and wanted topics).
    func remember(_ hello: WireHello) {
        write("remember a node") { db in
            try db.execute(sql: "INSERT OR REPLACE INTO known_peer (name, hello) VALUES (?, ?)",
                           arguments: [hello.nodeName, try hello.serializedBytes() as Data])
        }
    }

    /// Forgets a node and every event kept for it.
    func forget(_ name: String) {
        write("forget a node") { db in
            try db.execute(sql: "DELETE FROM known_peer WHERE name = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM outbox WHERE peer = ?", arguments: [name])
        }
    }

    /// The nodes remembered from earlier runs.
    func knownPeers() -> [WireHello] {
        do {
            let blobs = try queue.read { db in try Data.fetchAll(db, sql: "SELECT hello FROM known_peer ORDER BY name") }
            return try blobs.map { try WireHello(serializedBytes: $0) }
        } catch {
            logger.error("cannot read the known nodes from the outbox journal", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func write(_ what: String, _ body: (Database) throws -> Void) {
        do { try queue.write(body) } catch {
            logger.error("durable outbox journal: cannot \(what); the event is kept in memory only", metadata: ["error": "\(error)"])
        }
    }
}

/// The outbox journal cannot be opened.
public struct OutboxJournalError: Error, Sendable, CustomStringConvertible {
    /// The journal file.
    public let path: String
    /// Why, from SQLite.
    public let reason: String
    public var description: String { "durable outbox journal \(path): \(reason)" }
}
