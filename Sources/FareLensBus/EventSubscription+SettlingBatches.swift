import DequeModule
import Synchronization

extension EventSubscription {
    /// The subscription's deliveries in batches of at most `maximum` that
    /// the consumer settles itself, for a consumer that works on the next
    /// batch while the previous one's transaction commits.
    ///
    /// Unlike ``batches(maximum:)``, asking for the next batch settles
    /// nothing: a durable event from another node is acknowledged to its
    /// sender when the consumer calls ``DeliveryBatch/settle()`` on the
    /// batch that holds it — after the transaction that applied it
    /// committed. A batch dropped unsettled is given up like an iterator's
    /// events: done while the bus runs, never acknowledged once it is
    /// shutting down (the sender redelivers it to the node's next life). A
    /// batch is what is already buffered (up to `maximum`), or the next
    /// event when nothing is: it never waits to fill up, unless it gathers.
    ///
    /// - Parameter gathering: when longer than zero, a batch is handed out
    ///   `gathering` after its first event arrived in the subscriber's
    ///   buffer, or as soon as `maximum` events are in hand, whichever is
    ///   first: events that arrive within `gathering` after the first are
    ///   handed out with it (for a consumer whose events compete, such as
    ///   alerts under a daily cap). Events that waited in the buffer while
    ///   the consumer worked on an earlier batch are held only until their
    ///   own window ends, not a whole window from when they are taken.
    ///   Arrivals are timed from this call on; events buffered before it
    ///   are taken as arriving when the consumer takes them. Zero, the
    ///   default: nothing waits.
    public func settlingBatches(maximum: Int, gathering: Duration = .zero) -> SettlingDeliveryBatches<Event> {
        if gathering > .zero { queue.timeArrivals() }
        return SettlingDeliveryBatches(subscription: self, maximum: Swift.max(1, maximum), gathering: Swift.max(.zero, gathering))
    }

    /// Moves every buffered delivery into `pending`, waiting for one when
    /// none is buffered; then, with a `gathering` window, waits for more
    /// (up to `maximum` in all) until the window has passed since the first
    /// one's arrival.
    func fill(_ pending: inout Deque<ErasedDelivery>, maximum: Int, gathering: Duration) async {
        let firstArrival = await queue.nextBatch(into: &pending)
        guard gathering > .zero, !pending.isEmpty, pending.count < maximum else { return }
        // Unknown for events that arrived before the queue timed arrivals (before `settlingBatches` was asked for):
        // taken as arriving now, so that they too gather (a service's first batch, published before it ran).
        let since = firstArrival ?? queue.clock.now()
        await queue.gather(maximum - pending.count, until: since.advanced(by: gathering), into: &pending)
    }
}

/// Batches of a subscription's deliveries that the consumer settles
/// (``EventSubscription/settlingBatches(maximum:)``).
public struct SettlingDeliveryBatches<Event: Sendable>: AsyncSequence, Sendable {
    public typealias Element = DeliveryBatch<Event>
    let subscription: EventSubscription<Event>
    let maximum: Int
    let gathering: Duration

    /// Keeps the subscription alive while iterating.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: EventSubscription<Event>
        let maximum: Int
        let gathering: Duration
        let taken = TakenDeliveries()

        /// Whether a delivery is already waiting, so ``next()`` would
        /// return at once: a consumer that works on the next batch before
        /// settling the last settles the last first when none is (an idle
        /// stream must not keep its last batch unacknowledged).
        public var hasWaitingDeliveries: Bool { !taken.pending.isEmpty || subscription.bufferedCount > 0 }

        public mutating func next() async -> DeliveryBatch<Event>? {
            while true {
                if taken.pending.isEmpty { await subscription.fill(&taken.pending, maximum: maximum, gathering: gathering) }
                guard !taken.pending.isEmpty else { return nil }
                let count = Swift.min(maximum, taken.pending.count)
                var deliveries: [Delivery<Event>] = []
                deliveries.reserveCapacity(count)
                var settlements: [DeliverySettlement] = []
                // Taken one at a time: iterating a slice of the deque, twice, cost more than the casts (docs/performance.md).
                for _ in 0..<count {
                    let delivery = taken.pending.removeFirst()
                    if let settlement = delivery.settlement { settlements.append(settlement) }
                    if let typed = delivery.typed(as: Event.self) { deliveries.append(typed) }
                }
                let batch = DeliveryBatch(deliveries: deliveries, settlements: settlements)
                // Never short: a typed queue is offered only its own type
                // (SubscriptionTable.audience); an empty batch would end the sequence.
                if !batch.deliveries.isEmpty { return batch }
                batch.settle()
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: subscription, maximum: maximum, gathering: gathering) }
}

/// Deliveries taken from the queue but not yet handed out in a batch; given
/// up when the iterator goes away.
final class TakenDeliveries {
    var pending: Deque<ErasedDelivery> = []

    deinit {
        for delivery in pending { delivery.settlement?.giveUp() }
    }
}

/// One batch of ``EventSubscription/settlingBatches(maximum:)``: its
/// deliveries, and the settlement that acknowledges the durable ones from
/// other nodes when the consumer is done with them.
public final class DeliveryBatch<Event: Sendable>: Sendable {
    /// The deliveries, in the order the subscription received them.
    public let deliveries: [Delivery<Event>]
    /// Nil once settled.
    private let settlements: Mutex<[DeliverySettlement]?>

    init(deliveries: [Delivery<Event>], settlements: [DeliverySettlement]) {
        self.deliveries = deliveries
        self.settlements = Mutex(settlements)
    }

    /// Says the consumer is done with every delivery of the batch (its
    /// effects committed): a durable event from another node is
    /// acknowledged once every local subscriber is done with it. A second
    /// call does nothing.
    public func settle() {
        for settlement in settlements.withLock({ $0.take() }) ?? [] { settlement.release() }
    }

    /// Whether ``settle()`` was called.
    public var isSettled: Bool { settlements.withLock { $0 == nil } }

    deinit {
        for settlement in settlements.withLock({ $0.take() }) ?? [] { settlement.giveUp() }
    }
}
