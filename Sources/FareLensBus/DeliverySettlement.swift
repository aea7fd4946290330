import Synchronization

/// Tracks one durable event that arrived from another node until every
/// local subscriber that received it is done with it, then runs the
/// callbacks that acknowledge it to the sender.
///
/// A subscriber is done with a delivery when it asks its subscription for
/// the next event, or ends the subscription (docs/bus.md): a consumer that
/// crashes while handling an event has not acknowledged it, so the sender
/// delivers it again after the link returns. A subscriber that gives an
/// event up unhandled while its bus is shutting down (``giveUp()``) leaves
/// it unacknowledged for good: the sender redelivers it to the node's next
/// life instead of losing it in a graceful restart.
@usableFromInline
final class DeliverySettlement: Sendable {
    private struct State {
        /// Holders not yet done: one per subscriber queue that took the
        /// event, plus one held by the bus while it is still fanning out.
        var outstanding = 1
        var callbacks: [@Sendable () -> Void] = []
        var settled = false
        /// A holder gave the event up unhandled during shutdown: never acknowledge it.
        var unhandled = false
    }
    private let state = Mutex(State())
    private let shutdown: ShutdownFlag

    /// A settlement whose callback runs once every holder is done.
    init(onSettled: (@Sendable () -> Void)?, shutdown: ShutdownFlag) {
        self.shutdown = shutdown
        if let onSettled { state.withLock { $0.callbacks.append(onSettled) } }
    }

    /// One more holder (a subscriber queue took the event).
    func hold() {
        state.withLock { $0.outstanding += 1 }
    }

    /// One holder is done; the last one runs the callbacks (unless a holder
    /// gave the event up unhandled during shutdown).
    func release() {
        let callbacks: [@Sendable () -> Void] = state.withLock { state in
            state.outstanding -= 1
            guard state.outstanding == 0, !state.settled else { return [] }
            state.settled = true
            defer { state.callbacks = [] }
            return state.unhandled ? [] : state.callbacks
        }
        for callback in callbacks { callback() }
    }

    /// One holder lets the event go without having finished it: its
    /// subscription or iterator went away before asking for the next event.
    /// While the bus runs that counts as done (the subscriber chose to stop;
    /// no sender should wait for ever); once the bus is shutting down it
    /// does not, and the event is never acknowledged from this bus.
    func giveUp() {
        if shutdown.isRaised { state.withLock { $0.unhandled = true } }
        release()
    }

    /// Runs `callback` when the event is settled (at once if it already is):
    /// how a redelivery's acknowledgement waits for the original delivery.
    /// Never runs it for an event given up unhandled during shutdown.
    func whenSettled(_ callback: @escaping @Sendable () -> Void) {
        let now: Bool? = state.withLock { state in
            if state.settled { return !state.unhandled }
            state.callbacks.append(callback)
            return nil
        }
        if now == true { callback() }
    }

    /// Whether every holder is done.
    var isSettled: Bool { state.withLock { $0.settled } }
}
