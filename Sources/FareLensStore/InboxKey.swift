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
