import DequeModule

/// A subscription: an `AsyncSequence` of deliveries that ends when
/// ``cancel()`` is called, when the subscription is released, or when the
/// consuming task is cancelled. Events published before `subscribe`
/// returned are not delivered.
public final class EventSubscription<Event: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Delivery<Event>
    private let queue: SubscriberQueue<Event>
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
    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: EventSubscription<Event>
        var batch: Deque<Delivery<Event>> = []
        public mutating func next() async -> Delivery<Event>? {
            if let first = batch.popFirst() { return first }
            await subscription.queue.nextBatch(into: &batch)
            return batch.popFirst()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
}
