import DequeModule
import NIOConcurrencyHelpers

/// Outcome of offering an event to one subscriber.
enum OfferOutcome: Sendable {
    case enqueued
    /// The buffer was full and the topic is not durable.
    case dropped
    /// The buffer is full and the topic is durable: wait, then offer again.
    case mustWait
    /// The subscription has ended.
    case closed
}

/// One delivery as a subscriber queue holds it, whatever its event type.
@usableFromInline typealias ErasedDelivery = Delivery<any BusEvent>

/// The bounded buffer of one subscriber. FIFO; for durable topics it makes
/// publishers wait for room. Redeliveries never reach it: the bus filters
/// them where events arrive from other nodes (``RedeliveryWindow``).
///
/// Not generic: it holds deliveries as `any BusEvent`, so publishing runs
/// no generic code per subscriber (a generic queue looked up the metadata
/// of its state, buffer and continuation types on every event, a quarter of
/// the publish path). A typed subscription turns each event back into its
/// type as it hands it out (``EventSubscription``).
///
/// The consumer is woken once per batch: a publisher appends and resumes a
/// parked consumer, which takes everything buffered by the time it runs.
@usableFromInline
final class SubscriberQueue: Sendable {
    /// The continuations are unsafe ones. safe: each is taken out of the
    /// state under the lock before it is resumed, so it is resumed exactly
    /// once (a checked one costs an allocation per park on the hot path).
    private struct State {
        var buffer: Deque<ErasedDelivery> = []
        var consumer: UnsafeContinuation<Void, Never>?
        /// How many buffered events wake the parked consumer: 1, except
        /// while it gathers a batch (``gather(_:until:into:)``).
        var consumerWakesAt = 1
        /// When the consumer gathering a batch stops waiting for more.
        var gatheringDeadline: ContinuousClock.Instant?
        var roomWaiters: [UnsafeContinuation<Void, Never>] = []
        var closed = false
        /// Whether ``firstArrival`` is kept (``timeArrivals()``): off, the
        /// publish path reads no clock.
        var timesArrivals = false
        /// When the oldest buffered event arrived in an empty buffer.
        var firstArrival: ContinuousClock.Instant?
    }
    let capacity: Int
    /// The one event type this subscriber takes; nil for a subscriber to
    /// any type (a wildcard one).
    let eventType: ObjectIdentifier?
    /// What arrivals and gathering windows are timed by (``BusConfiguration/clock``).
    let clock: BusClock
    /// A pthread mutex, not `Synchronization.Mutex`: the publisher and the
    /// consumer take this lock from two threads at once, and under that
    /// contention `Mutex` (a priority-inheriting futex on Linux) made
    /// publishing 1.3-1.4x slower (decision 0015).
    private let state = NIOLockedValueBox(State())

    init(capacity: Int, eventType: ObjectIdentifier?, clock: BusClock = .continuous) {
        self.capacity = max(1, capacity)
        self.eventType = eventType
        self.clock = clock
    }

    /// Whether events of `type` belong in this queue.
    func takes(_ type: ObjectIdentifier) -> Bool {
        eventType == nil || eventType == type
    }

    /// Tries to enqueue without waiting.
    func offer(_ delivery: ErasedDelivery, durable: Bool) -> OfferOutcome {
        let (outcome, consumer): (OfferOutcome, UnsafeContinuation<Void, Never>?) = state.withLockedValue { state in
            if state.closed { return (.closed, nil) }
            guard state.buffer.count < capacity else { return (durable ? .mustWait : .dropped, nil) }
            delivery.settlement?.hold()
            if state.timesArrivals && state.buffer.isEmpty { state.firstArrival = clock.now() }
            state.buffer.append(delivery)
            guard state.buffer.count >= state.consumerWakesAt else { return (.enqueued, nil) }
            defer { state.consumer = nil }
            return (.enqueued, state.consumer)
        }
        consumer?.resume()
        return outcome
    }

    /// Enqueues a durable event, waiting while the buffer is full. A
    /// cancelled publisher stops waiting (``OfferOutcome/closed``): only a
    /// node shutting down cancels one, and its queues die with it.
    nonisolated(nonsending) func offerWaiting(_ delivery: ErasedDelivery) async -> OfferOutcome {
        while true {
            let outcome = offer(delivery, durable: true)
            guard case .mustWait = outcome else { return outcome }
            if Task.isCancelled { return .closed }
            await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                    let wakeNow = state.withLockedValue { state in
                        if state.closed || state.buffer.count < capacity || Task.isCancelled { return true }
                        state.roomWaiters.append(continuation)
                        return false
                    }
                    if wakeNow { continuation.resume() }
                }
            } onCancel: {
                // Wakes every waiting publisher; the ones not cancelled
                // find the buffer still full and wait again.
                let waiters = state.withLockedValue { state in
                    defer { state.roomWaiters = [] }
                    return state.roomWaiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }
    }

    /// Moves every buffered event into `batch` (one lock for many events,
    /// so a busy consumer does not contend with its publisher per event),
    /// waiting for one if none is buffered. Leaves `batch` empty once the
    /// subscription is closed and drained.
    ///
    /// - Returns: when the first of the events taken arrived, if the queue
    ///   times arrivals (``timeArrivals()``) and it arrived in an empty
    ///   buffer since.
    @discardableResult
    nonisolated(nonsending) func nextBatch(into batch: inout Deque<ErasedDelivery>) async -> ContinuousClock.Instant? {
        while true {
            let (waiters, finished, arrival): ([UnsafeContinuation<Void, Never>], Bool, ContinuousClock.Instant?) = state.withLockedValue { state in
                if state.buffer.isEmpty { return ([], state.closed, nil) }
                swap(&batch, &state.buffer)
                // Taking the buffer frees room: publishers waiting for it
                // must be woken here, or with every publisher parked
                // nobody would ever wake them (a lost wakeup).
                defer { state.roomWaiters = []; state.firstArrival = nil }
                return (state.roomWaiters, false, state.firstArrival)
            }
            for waiter in waiters { waiter.resume() }
            if !batch.isEmpty || finished { return arrival }
            await waitForEvents()
        }
    }

    /// Keeps, from now on, when an event arrives in an empty buffer (what
    /// ``nextBatch(into:)`` returns). A consumer that gathers batches
    /// turns it on; the others' publishers read no clock.
    func timeArrivals() {
        state.withLockedValue { $0.timesArrivals = true }
    }

    /// Waits until `count` more events are buffered, the queue closes or
    /// `deadline` passes, whichever comes first, then appends everything
    /// buffered to `batch` without waiting further.
    nonisolated(nonsending) func gather(_ count: Int, until deadline: ContinuousClock.Instant, into batch: inout Deque<ErasedDelivery>) async {
        if count > 0, clock.now() < deadline {
            // Wakes the consumer at the deadline.
            let timer = Task { [self] in
                guard (try? await clock.sleep(deadline)) != nil else { return }  // safe: bounded by the gathering window, cancelled once the consumer is awake
                wakeGatheringConsumer()
            }
            await waitForEvents(count, until: deadline)
            timer.cancel()
        }
        let waiters: [UnsafeContinuation<Void, Never>] = state.withLockedValue { state in
            batch.append(contentsOf: state.buffer)
            state.buffer.removeAll(keepingCapacity: true)
            state.firstArrival = nil
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Wakes the consumer parked by ``gather(_:until:into:)`` (its deadline passed).
    private func wakeGatheringConsumer() {
        let consumer: UnsafeContinuation<Void, Never>? = state.withLockedValue { state in
            guard state.gatheringDeadline != nil else { return nil }
            defer { state.consumer = nil }
            return state.consumer
        }
        consumer?.resume()
    }

    /// Parks the consumer until `count` events are buffered or the queue
    /// closes, or, when `deadline` is given, until it passes (then
    /// ``wakeGatheringConsumer()`` resumes it).
    private nonisolated(nonsending) func waitForEvents(_ count: Int = 1, until deadline: ContinuousClock.Instant? = nil) async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let wakeNow = state.withLockedValue { state in
                    if state.buffer.count >= count || state.closed { return true }
                    // The deadline's timer may have fired before this park: it found no consumer to wake.
                    if let deadline, clock.now() >= deadline { return true }
                    state.consumer = continuation
                    state.consumerWakesAt = count
                    state.gatheringDeadline = deadline
                    return false
                }
                if wakeNow { continuation.resume() }
            }
            // Back to the plain wait; that one costs no second lock.
            if count != 1 || deadline != nil {
                state.withLockedValue { state in
                    state.consumerWakesAt = 1
                    state.gatheringDeadline = nil
                }
            }
        } onCancel: {
            close()
        }
    }

    /// Number of buffered events.
    var count: Int { state.withLockedValue { $0.buffer.count } }

    /// Durable events from other nodes still buffered when the queue goes
    /// away were given up by their subscriber (``DeliverySettlement/giveUp()``:
    /// done while the bus runs, unacknowledged once it is shutting down).
    deinit {
        for delivery in state.withLockedValue({ $0.buffer }) { delivery.settlement?.giveUp() }
    }

    /// Ends the subscription: the consumer sees the buffered events, then the
    /// end; waiting publishers are released.
    func close() {
        let (consumer, waiters) = state.withLockedValue { state in
            state.closed = true
            defer {
                state.consumer = nil
                state.roomWaiters = []
            }
            return (state.consumer, state.roomWaiters)
        }
        consumer?.resume()
        for waiter in waiters { waiter.resume() }
    }
}
