import DequeModule

/// A subscription: an `AsyncSequence` of deliveries that ends when
/// ``cancel()`` is called, when the subscription is released, or when the
/// consuming task is cancelled. Events published before `subscribe`
/// returned are not delivered.
public final class EventSubscription<Event: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Delivery<Event>
    @usableFromInline let queue: SubscriberQueue
    /// Removes the queue from the bus's subscriptions.
    private let onCancel: @Sendable (SubscriberQueue) -> Void

    init(queue: SubscriberQueue, onCancel: @escaping @Sendable (SubscriberQueue) -> Void) {
        self.queue = queue
        self.onCancel = onCancel
    }

    deinit { cancel() }

    /// Stops the subscription; buffered events are still delivered, then the
    /// sequence ends.
    public func cancel() {
        onCancel(queue)
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
    ///
    /// Inlinable, so a consumer in another module runs it specialised to
    /// its event type (no generic metadata look-up per event).
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let subscription: EventSubscription<Event>
        @usableFromInline let state = IteratorState()

        init(subscription: EventSubscription<Event>) {
            self.subscription = subscription
        }

        /// The next delivery, taken on the caller's executor (no hop to the
        /// global one and back per batch); nil once the subscription ended.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Delivery<Event>? {
            while true {
                var erased = state.takeNext()
                if erased == nil {
                    await state.refill(from: subscription.queue)
                    erased = state.takeNext()
                }
                guard let erased else { return nil }
                if let delivery = erased.typed(as: Event.self) { return delivery }
                // Unreachable: a typed queue is offered only its own type
                // (SubscriptionTable.audience). The next turn is done with
                // it (it is not kept unsettled).
                assertionFailure("\(erased.metadata.typeName) reached a subscription to \(Event.self)")
            }
        }

        /// The next delivery; nil once the subscription ended.
        @inlinable
        public mutating func next() async -> Delivery<Event>? {
            await next(isolation: nil)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
}

/// What one iterator holds: the batch taken from the queue and the delivery
/// it last handed out. When the iterator goes away, its consumer gave up
/// everything it still holds (``DeliverySettlement/giveUp()``: done while
/// the bus runs, so no sender waits for ever; unacknowledged once the bus is
/// shutting down, so a graceful restart loses nothing).
@usableFromInline
final class IteratorState {
    private var batch: Deque<ErasedDelivery> = []
    private var inHand: DeliverySettlement?

    @usableFromInline init() {}

    /// Done with the delivery handed out last; the next one taken from the
    /// queue, or nil when none is buffered here (then ``refill(from:)``).
    @usableFromInline
    func takeNext() -> ErasedDelivery? {
        inHand?.release()
        let next = batch.popFirst()
        inHand = next?.settlement
        return next
    }

    /// Takes everything the queue buffered, waiting for at least one
    /// delivery; takes none once the subscription has ended.
    @usableFromInline
    nonisolated(nonsending) func refill(from queue: SubscriberQueue) async {
        await queue.nextBatch(into: &batch)
    }

    deinit {
        inHand?.giveUp()
        for delivery in batch { delivery.settlement?.giveUp() }
    }
}
