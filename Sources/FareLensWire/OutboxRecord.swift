import FareLensMessages
import Foundation
import GRDB

/// One durable event waiting in the journal for a peer's acknowledgement:
/// a row of the `outbox` table (migration `bridge-001-outbox`).
struct OutboxRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "outbox"

    /// The columns, for queries.
    enum Columns {
        static let peer = Column(CodingKeys.peer)
        static let tag = Column(CodingKeys.tag)
    }

    /// The receiving peer (a node name; `hub` in a spoke's journal).
    var peer: String
    /// The delivery tag, stored as its bit pattern (SQLite integers are signed).
    var tag: Int64
    /// The serialized EVENT envelope, tag included.
    var envelope: Data

    /// The row for `envelope`, sent to `peer` under `tag`.
    init(peer: String, tag: UInt64, envelope: WireEnvelope) throws {
        self.peer = peer
        self.tag = Int64(bitPattern: tag)
        self.envelope = try envelope.serializedBytes()
    }

    /// The delivery tag as the wire carries it.
    var deliveryTag: UInt64 { UInt64(bitPattern: tag) }

    /// The envelope, decoded.
    func decoded() throws -> WireEnvelope { try WireEnvelope(serializedBytes: envelope) }
}
