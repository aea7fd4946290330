/// The identity of one published event: which bus instance published it and
/// its sequence number there. Sequence numbers grow by one per event of a
/// publisher, which is what lets a durable subscriber drop redeliveries.
public struct EventID: Hashable, Sendable, CustomStringConvertible {
    /// The publishing bus instance: node name plus a random epoch, so a
    /// restarted node never reuses the ids of its previous life.
    public let publisher: String
    /// Position in the publisher's stream, starting at 1.
    public let sequence: UInt64
    /// Creates an id.
    public init(publisher: String, sequence: UInt64) {
        self.publisher = publisher
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
}
