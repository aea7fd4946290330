import DequeModule
import Synchronization

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

/// The bounded buffer of one subscriber. FIFO; for durable topics it makes
/// publishers wait for room. Redeliveries never reach it: the bus filters
/// them where events arrive from other nodes (``RedeliveryWindow``).
final class SubscriberQueue<Element: Sendable>: Sendable {
    private struct State {
        var buffer: Deque<Delivery<Element>> = []
        var consumer: CheckedContinuation<Delivery<Element>?, Never>?
        var roomWaiters: Deque<CheckedContinuation<Void, Never>> = []
        var closed = false
    }
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Tries to enqueue without waiting.
    func offer(_ delivery: Delivery<Element>) -> OfferOutcome {
        let durable = delivery.metadata.topic.isDurable
        let (outcome, consumer): (OfferOutcome, CheckedContinuation<Delivery<Element>?, Never>?) = state.withLock { state in
            if state.closed { return (.closed, nil) }
            if let consumer = state.consumer {
                state.consumer = nil
                delivery.settlement?.hold()
                return (.enqueued, consumer)
            }
            guard state.buffer.count < capacity else { return (durable ? .mustWait : .dropped, nil) }
            delivery.settlement?.hold()
            state.buffer.append(delivery)
            return (.enqueued, nil)
        }
        consumer?.resume(returning: delivery)
        return outcome
    }

    /// Enqueues a durable event, waiting while the buffer is full. A
    /// cancelled publisher stops waiting (``OfferOutcome/closed``): only a
    /// node shutting down cancels one, and its queues die with it.
    func offerWaiting(_ delivery: Delivery<Element>) async -> OfferOutcome {
        while true {
            let outcome = offer(delivery)
            guard case .mustWait = outcome else { return outcome }
            if Task.isCancelled { return .closed }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let wakeNow = state.withLock { state in
                        if state.closed || state.buffer.count < capacity || Task.isCancelled { return true }
                        state.roomWaiters.append(continuation)
                        return false
                    }
                    if wakeNow { continuation.resume() }
                }
            } onCancel: {
                // Wakes every waiting publisher; the ones not cancelled
                // find the buffer still full and wait again.
                let waiters = state.withLock { state in
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
    func nextBatch(into batch: inout Deque<Delivery<Element>>) async {
        let (waiters, finished): ([CheckedContinuation<Void, Never>], Bool) = state.withLock { state in
            if state.buffer.isEmpty { return ([], state.closed) }
            swap(&batch, &state.buffer)
            defer { state.roomWaiters = [] }
            return (Array(state.roomWaiters), false)
        }
        for waiter in waiters { waiter.resume() }
        if !batch.isEmpty || finished { return }
        if let single = await waitForOne() { batch.append(single) }
    }

    private func waitForOne() async -> Delivery<Element>? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery<Element>?, Never>) in
                // Taking a buffered event frees room: publishers waiting for
                // it must be woken here too, or with every publisher parked
                // nobody would ever wake them (a lost wakeup).
                let (immediate, waiters): (Delivery<Element>??, [CheckedContinuation<Void, Never>]) = state.withLock { state in
                    if let first = state.buffer.popFirst() {
                        defer { state.roomWaiters = [] }
                        return (.some(first), Array(state.roomWaiters))
                    }
                    if state.closed { return (.some(nil), []) }
                    state.consumer = continuation
                    return (nil, [])
                }
                for waiter in waiters { waiter.resume() }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            close()
        }
    }

    /// Number of buffered events.
    var count: Int { state.withLock { $0.buffer.count } }

    /// Durable events from other nodes still buffered when the queue goes
    /// away were given up by their subscriber (``DeliverySettlement/giveUp()``:
    /// done while the bus runs, unacknowledged once it is shutting down).
    deinit {
        for delivery in state.withLock({ $0.buffer }) { delivery.settlement?.giveUp() }
    }

    /// Ends the subscription: the consumer sees the buffered events, then nil;
    /// waiting publishers are released.
    func close() {
        let (consumer, waiters) = state.withLock { state in
            state.closed = true
            let consumer = state.buffer.isEmpty ? state.consumer : nil
            if consumer != nil { state.consumer = nil }
            defer { state.roomWaiters = [] }
            return (consumer, state.roomWaiters)
        }
        consumer?.resume(returning: nil)
        for waiter in waiters { waiter.resume() }
    }
}
