import DequeModule

/// A subscription: an `AsyncSequence` of deliveries that ends when
/// ``cancel()`` is called, when the subscription is released, or when the
/// consuming task is cancelled. Events published before `subscribe`
/// returned are not delivered.
public final class EventSubscription<Event: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Delivery<Event>
    let queue: SubscriberQueue<Event>
    private let onCancel: @Sendable () -> Void

    init(queue: SubscriberQueue<Event>, onCancel: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.onCancel = onCancel
    }

    deinit { cancel() }

    /// Stops the subscription; buffered events are still delivered, then the
    /// sequence ends.
    public func cancel() {
        onCancel()
        queue.close()
    }

    /// Events waiting in this subscriber's buffer.
    public var bufferedCount: Int { queue.count }

    /// Keeps its subscription alive while iterating; takes events from the
    /// subscriber's buffer in batches.
    ///
    /// Asking for the next event says the consumer is done with the previous
    /// one: a durable event from another node is acknowledged to its sender
    /// only then (or when the iterator goes away), so a consumer that
    /// crashes while handling it gets it again after a restart.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: EventSubscription<Event>
        let state = IteratorState<Event>()

        public mutating func next() async -> Delivery<Event>? {
            state.doneWithLast()
            if state.batch.isEmpty { await subscription.queue.nextBatch(into: &state.batch) }
            let delivery = state.batch.popFirst()
            state.inHand = delivery?.settlement
            return delivery
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
}

/// What one iterator holds: the batch taken from the queue and the delivery
/// it last handed out. When the iterator goes away, its consumer gave up
/// everything it still holds (``DeliverySettlement/giveUp()``: done while
/// the bus runs, so no sender waits for ever; unacknowledged once the bus is
/// shutting down, so a graceful restart loses nothing).
final class IteratorState<Event: Sendable> {
    var batch: Deque<Delivery<Event>> = []
    var inHand: DeliverySettlement?

    func doneWithLast() {
        inHand?.release()
        inHand = nil
    }

    deinit {
        inHand?.giveUp()
        for delivery in batch { delivery.settlement?.giveUp() }
    }
}
