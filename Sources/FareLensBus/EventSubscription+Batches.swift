import DequeModule

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

    /// Moves every buffered delivery into `pending`, waiting for one when none is buffered.
    func fill(_ pending: inout Deque<ErasedDelivery>) async {
        await queue.nextBatch(into: &pending)
    }
}

/// Batches of a subscription's deliveries (``EventSubscription/batches(maximum:)``).
public struct DeliveryBatches<Event: Sendable>: AsyncSequence, Sendable {
    public typealias Element = [Delivery<Event>]
    let subscription: EventSubscription<Event>
    let maximum: Int

    /// Keeps the subscription alive while iterating.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: EventSubscription<Event>
        let maximum: Int
        let state = BatchIteratorState()

        public mutating func next() async -> [Delivery<Event>]? {
            state.doneWithLast()
            while true {
                if state.pending.isEmpty { await subscription.fill(&state.pending) }
                guard !state.pending.isEmpty else { return nil }
                let taken = state.pending.prefix(maximum)
                state.pending.removeFirst(taken.count)
                state.inHand = taken.compactMap(\.settlement)
                let batch = taken.compactMap { $0.typed(as: Event.self) }
                // Never short: a typed queue is offered only its own type
                // (SubscriptionTable.audience); an empty batch would end the sequence.
                if !batch.isEmpty { return batch }
                state.doneWithLast()
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: subscription, maximum: maximum) }
}

/// What one batch iterator holds: deliveries taken from the queue but not yet
/// handed out, and the settlements of the batch handed out last. When the
/// iterator goes away its consumer gave up everything it still holds (as
/// ``IteratorState`` does for one delivery).
final class BatchIteratorState {
    var pending: Deque<ErasedDelivery> = []
    var inHand: [DeliverySettlement] = []

    func doneWithLast() {
        for settlement in inHand { settlement.release() }
        inHand = []
    }

    deinit {
        for settlement in inHand { settlement.giveUp() }
        for delivery in pending { delivery.settlement?.giveUp() }
    }
}
