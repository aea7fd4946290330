public import GRDB

/// One durable event a consumer has applied: the inbox's table,
/// `inbox_event`, in the consumer service's own database.
public struct InboxRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "inbox_event"
    /// Who applied it (a service, or one concern inside it).
    public var consumer: String
    /// The event's publisher (``InboxKey/publisher``).
    public var publisher: String
    /// The event's sequence at its publisher, stored as SQLite's signed integer.
    public var sequence: Int64
    /// When it was applied, Unix epoch milliseconds (for pruning).
    public var appliedAtUnixMs: Int64
}

/// The identity of a durable event as the inbox keys it: the bus's event id
/// (`EventID.publisher` and `EventID.sequence`), which stays the same when
/// the event is redelivered.
public struct InboxKey: Hashable, Sendable {
    /// The publishing bus instance.
    public let publisher: String
    /// The event's sequence there.
    public let sequence: UInt64
    /// Creates a key.
    public init(publisher: String, sequence: UInt64) {
        self.publisher = publisher
        self.sequence = sequence
    }
}
