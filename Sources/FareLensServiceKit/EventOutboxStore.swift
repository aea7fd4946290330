public import FareLensBus
public import FareLensStore
import Foundation
import GRDB

/// Where an ``EventOutbox``'s events wait until this node is done with
/// them: the `event_outbox` table its ``EventOutbox/append(_:parent:in:)``
/// writes (``EventOutboxTable``), or a service's own table whose committed
/// rows are its events (alerts' decisions), so that reporting a change
/// writes nothing more than the change.
///
/// A store's sequences only grow, and are never given to two events, also
/// across restarts and deletions: they are the events' ids on the bus.
public protocol EventOutboxStore: Sendable {
    /// The instance in the outbox's publisher name, `<owner>.outbox#<instance>`:
    /// fixed for the life of the database.
    func instance() async throws(StoreError) -> String
    /// The sequence through which every event was published and settled by
    /// an earlier run (0 when the store keeps only waiting events): the
    /// relay starts after it.
    func settledThrough() async throws(StoreError) -> Int64
    /// The committed events after `sequence`, at most `limit`, in sequence order.
    func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [OutboxEvent]
    /// Every event through `sequence` is settled: it is not to be published
    /// again. A store may record this later (alerts' decisions record it
    /// with their next transaction); until it has, a new run publishes those
    /// events again, under the same ids.
    func forget(through sequence: Int64) async throws(StoreError)
}

/// One committed event, as an ``EventOutboxStore`` reads it or a service
/// hands it over at commit (``EventOutbox/committed(first:count:in:event:)``).
/// The event itself is made only when it is published.
public struct OutboxEvent: Sendable {
    /// Its sequence under the outbox's publisher name.
    public let sequence: Int64
    /// The trace id it is published with.
    public let traceID: TraceID
    /// Its wire type name (for the log when it cannot be made).
    public let typeName: String
    /// Makes the event: decodes it, or builds it from the row it reports.
    let make: @Sendable () throws -> any BusEvent

    /// An event that `make` makes when it is published.
    public init(sequence: Int64, traceID: TraceID, typeName: String, make: @escaping @Sendable () throws -> any BusEvent) {
        self.sequence = sequence
        self.traceID = traceID
        self.typeName = typeName
        self.make = make
    }
}

/// The `event_outbox` table as an ``EventOutboxStore``: each row holds an
/// event's wire bytes until it settles, then is deleted.
struct EventOutboxTable: EventOutboxStore {
    let owner: String
    let database: ServiceDatabase
    /// The types its rows may hold, by wire type name.
    let types: [String: any BusEvent.Type]
    /// Stamps each row's commit time (for an operator reading the table).
    let clock: any WallClock

    /// Inserts `event`'s row inside the write transaction `db`.
    ///
    /// - Throws: ``EventOutboxError`` `unregistered-type` for a type not in
    ///   ``types`` (the relay could not decode it); the encoder's or SQLite's error otherwise.
    func insert<E: BusEvent>(_ event: E, traceID trace: TraceID, in db: Database) throws {
        guard types[E.wireTypeName] != nil else { throw EventOutboxError.unregisteredType(E.wireTypeName, owner: owner) }
        try EventOutboxRecord(
            typeName: E.wireTypeName, payload: Data(try event.wireEncoded()), traceHigh: trace.high, traceLow: trace.low,
            committedAtUnixMs: clock.now().unixMilliseconds
        ).insert(db)
    }

    func instance() async throws(StoreError) -> String { try database.eventOutboxInstance() }

    /// 0: every row in the table is still waiting.
    func settledThrough() async throws(StoreError) -> Int64 { 0 }

    func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [OutboxEvent] {
        try await database.waitingEvents(after: sequence, limit: limit).compactMap { row in
            guard let sequence = row.sequence else { return nil }
            let type = types[row.typeName]
            let (owner, typeName, payload) = (owner, row.typeName, row.payload)
            return OutboxEvent(
                sequence: sequence, traceID: TraceID(high: UInt64(bitPattern: row.traceHigh), low: UInt64(bitPattern: row.traceLow)), typeName: typeName
            ) {
                guard let type else { throw EventOutboxError.unregisteredType(typeName, owner: owner) }
                return try type.init(wireEncoded: [UInt8](payload))
            }
        }
    }

    func forget(through sequence: Int64) async throws(StoreError) {
        try await database.removeWaitingEvents(through: sequence)
    }
}
