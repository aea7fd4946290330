public import Foundation
public import GRDB

/// One event a service committed and has not yet seen the bus accept: a row
/// of `event_outbox` in the publishing service's own database, written in the
/// same transaction as the change it reports (docs/bus.md, "A service's
/// event outbox").
///
/// The row's ``sequence`` is the event's sequence on the bus under the
/// outbox's publisher name (``EventOutboxIdentity``), so a copy published
/// again after a crash carries the same id and consumers' inboxes recognise it.
public struct EventOutboxRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "event_outbox"

    /// The columns, for queries.
    public enum Columns {
        public static let sequence = Column(CodingKeys.sequence)
    }

    /// Assigned by SQLite on insert (`AUTOINCREMENT`: never reused, even
    /// after the row is deleted); nil before.
    public var sequence: Int64?
    /// The event's wire type name (how to decode ``payload``).
    public var typeName: String
    /// The event, serialized as on the wire.
    public var payload: Data
    /// The high half of the trace id of the operation that produced it.
    public var traceHigh: Int64
    /// The low half of that trace id.
    public var traceLow: Int64
    /// When it was written, Unix epoch milliseconds on the service's clock (for an operator reading the table).
    public var committedAtUnixMs: Int64

    /// A row to insert.
    public init(typeName: String, payload: Data, traceHigh: UInt64, traceLow: UInt64, committedAtUnixMs: Int64) {
        self.sequence = nil
        self.typeName = typeName
        self.payload = payload
        self.traceHigh = Int64(bitPattern: traceHigh)
        self.traceLow = Int64(bitPattern: traceLow)
        self.committedAtUnixMs = committedAtUnixMs
    }
}

/// The outbox's publisher name, made once when the table is created and kept
/// for the life of the database: the single row of `event_outbox_identity`.
public struct EventOutboxIdentity: Codable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "event_outbox_identity"
    /// A random 64-bit value in hex, unique to this database file.
    public var instance: String

    /// A new random instance: 16 hex digits. Also for a service whose own
    /// table is its outbox (alerts' decisions).
    public static func newInstance() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
