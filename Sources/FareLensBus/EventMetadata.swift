/// The identity of one published event: which bus instance published it and
/// its sequence number there. Ids are unique; sequence numbers grow with
/// each event a bus publishes, but events published by concurrent tasks may
/// reach a subscriber in any order, so nothing may assume they arrive in
/// sequence order (the bus recognises redeliveries by id, docs/bus.md).
///
/// Copying an id counts no reference (its publisher name is interned:
/// ``PublisherName``), so handing an event from one thread to another does
/// not contend on a shared string's reference count.
public struct EventID: Hashable, Sendable, CustomStringConvertible {
    private let publisherName: PublisherName
    /// The publishing bus instance: node name plus a random epoch, so a
    /// restarted node never reuses the ids of its previous life.
    public var publisher: String { publisherName.text }
    /// Position in the publisher's stream, starting at 1.
    public let sequence: UInt64
    /// Creates an id.
    public init(publisher: String, sequence: UInt64) {
        self.init(publisher: PublisherName(publisher), sequence: sequence)
    }

    /// Creates an id of a name already interned (what a bus does for its
    /// own events).
    init(publisher: PublisherName, sequence: UInt64) {
        self.publisherName = publisher
        self.sequence = sequence
    }
    public var description: String { "\(publisher)/\(sequence)" }
}

/// What a subscriber learns about an event besides its payload.
public struct EventMetadata: Sendable {
    /// The event's identity (the dedupe key).
    public let id: EventID
    /// The topic it was published on.
    public let topic: Topic
    /// The wire type name of the payload.
    public let typeName: String
    /// The trace id of the operation that published it.
    public let traceID: TraceID
    /// Creates metadata.
    public init(id: EventID, topic: Topic, typeName: String, traceID: TraceID) {
        self.id = id
        self.topic = topic
        self.typeName = typeName
        self.traceID = traceID
    }
}

/// One event as a subscriber receives it.
public struct Delivery<Event: Sendable>: Sendable {
    /// The payload.
    public let event: Event
    /// Its identity, topic and trace.
    public let metadata: EventMetadata
    /// For a durable event from another node: released when this
    /// subscriber is done with it (asks for the next event or ends the
    /// subscription), which is what acknowledges it to the sender.
    @usableFromInline let settlement: DeliverySettlement?

    @usableFromInline
    init(event: Event, metadata: EventMetadata, settlement: DeliverySettlement? = nil) {
        self.event = event
        self.metadata = metadata
        self.settlement = settlement
    }
}

extension Delivery where Event == any BusEvent {
    /// The same delivery with its event as type `T`; nil when it is another
    /// type. `T` may itself be `any BusEvent` (a wildcard subscription).
    @inlinable
    func typed<T>(as type: T.Type) -> Delivery<T>? {
        guard let event = event as? T else { return nil }
        return Delivery<T>(event: event, metadata: metadata, settlement: settlement)
    }
}
