import Synchronization

/// Tracks one durable event that arrived from another node until every
/// local subscriber that received it is done with it, then runs the
/// callbacks that acknowledge it to the sender.
///
/// A subscriber is done with a delivery when it asks its subscription for
/// the next event, or ends the subscription (docs/bus.md): a consumer that
/// crashes while handling an event has not acknowledged it, so the sender
/// delivers it again after the link returns.
final class DeliverySettlement: Sendable {
    private struct State {
        /// Holders not yet done: one per subscriber queue that took the
        /// event, plus one held by the bus while it is still fanning out.
        var outstanding = 1
        var callbacks: [@Sendable () -> Void] = []
        var settled = false
    }
    private let state = Mutex(State())

    /// A settlement whose callback runs once every holder is done.
    init(onSettled: (@Sendable () -> Void)?) {
        if let onSettled { state.withLock { $0.callbacks.append(onSettled) } }
    }

    /// One more holder (a subscriber queue took the event).
    func hold() {
        state.withLock { $0.outstanding += 1 }
    }

    /// One holder is done; the last one runs the callbacks.
    func release() {
        let callbacks: [@Sendable () -> Void] = state.withLock { state in
            state.outstanding -= 1
            guard state.outstanding == 0, !state.settled else { return [] }
            state.settled = true
            defer { state.callbacks = [] }
            return state.callbacks
        }
        for callback in callbacks { callback() }
    }

    /// Runs `callback` when the event is settled (at once if it already is):
    /// how a redelivery's acknowledgement waits for the original delivery.
    func whenSettled(_ callback: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if state.settled { return true }
            state.callbacks.append(callback)
            return false
        }
        if now { callback() }
    }

    /// Whether every holder is done.
    var isSettled: Bool { state.withLock { $0.settled } }
}
