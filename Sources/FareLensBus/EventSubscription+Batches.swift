extension EventSubscription {
    /// The subscription's deliveries in batches of at most `maximum`, for a
    /// consumer that applies many events in one transaction.
    ///
    /// The acknowledgement rule is the one-at-a-time iterator's, per batch:
    /// asking for the next batch says the consumer is done with every
    /// delivery of the previous one, so a durable event from another node is
    /// acknowledged only after the transaction that applied it committed. A
    /// batch is what is already buffered (up to `maximum`), or the next event
    /// when nothing is: it never waits to fill up.
    public func batches(maximum: Int) -> DeliveryBatches<Event> {
        DeliveryBatches(subscription: self, maximum: Swift.max(1, maximum))
    }
}

/// Batches of a subscription's deliveries (``EventSubscription/batches(maximum:)``):
/// ``EventSubscription/settlingBatches(maximum:)``, each batch settled when the next is asked for.
public struct DeliveryBatches<Event: Sendable>: AsyncSequence, Sendable {
    public typealias Element = [Delivery<Event>]
    let subscription: EventSubscription<Event>
    let maximum: Int

    /// Keeps the subscription alive while iterating. When it goes away, the
    /// batch in hand is given up (``DeliveryBatch``).
    public struct AsyncIterator: AsyncIteratorProtocol {
        var batches: SettlingDeliveryBatches<Event>.AsyncIterator
        var last: DeliveryBatch<Event>?

        public mutating func next() async -> [Delivery<Event>]? {
            last?.settle()
            last = await batches.next()
            return last?.deliveries
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(batches: subscription.settlingBatches(maximum: maximum).makeAsyncIterator())
    }
}
