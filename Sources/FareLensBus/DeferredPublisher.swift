import CoreMetrics
import DequeModule
public import Logging
import Synchronization

/// Publishes events off the path of the request that produced them, so a
/// handler answering a user never waits on event backpressure (a full
/// durable subscriber, an away node's backlog): the handler calls
/// ``enqueue(_:parent:)``, which never waits, and the service's `run()`
/// drains the queue with ``run()``, what waits at once (up to
/// ``batchLimit``) as one batch (``MessageBus/publish(queued:)``): over
/// NATS its durable events are all in flight together, one wait for their
/// acknowledgements, where one at a time cost a round trip each.
///
/// Bounded: at most `capacity` events wait. An event that finds the queue
/// full is not queued; ``enqueue(_:parent:)`` returns false and the drop is
/// counted in `farelens_bus_deferred_dropped_total{owner}` and logged as a
/// warning. An event queued after ``finish()`` (the service is stopping) is
/// dropped and counted the same way, but logged at debug: a stopping
/// service's last work is not a fault. A publish that
/// the bus refuses (`overloaded` at a node's backlog cap) is logged and
/// counted in `farelens_bus_deferred_refused_total{owner}`.
public final class DeferredPublisher: Sendable {
    /// Why ``enqueue(_:parent:)`` did not queue an event.
    private enum Refusal { case full, finished }
    private struct State {
        var queued: Deque<MessageBus.QueuedEvent> = []
        var drainer: CheckedContinuation<Void, Never>?
        var finished = false
    }

    /// The most events waiting to be published.
    public let capacity: Int
    /// The most events published as one batch.
    public let batchLimit: Int
    private let bus: MessageBus
    private let logger: Logger
    private let state = Mutex(State())
    private let dropped: Counter
    private let refused: Counter

    /// Creates a queue for the service `owner` (a metrics dimension).
    public init(bus: MessageBus, owner: String, capacity: Int = 16_384, batchLimit: Int = 1_024, logger: Logger) {
        self.bus = bus
        self.capacity = max(1, capacity)
        self.batchLimit = max(1, batchLimit)
        self.logger = logger
        let factory = bus.configuration.metricsFactory
        dropped = Counter(label: "farelens_bus_deferred_dropped_total", dimensions: [("owner", owner)], factory: factory)
        refused = Counter(label: "farelens_bus_deferred_refused_total", dimensions: [("owner", owner)], factory: factory)
    }

    /// Queues `event` for publishing; never waits.
    ///
    /// - Returns: false when the queue is full or drained for shutdown (the
    ///   event is dropped and counted).
    @discardableResult
    public func enqueue<E: BusEvent>(_ event: E, parent: RequestContext? = nil) -> Bool {
        let (refusal, drainer): (Refusal?, CheckedContinuation<Void, Never>?) = state.withLock { state in
            if state.finished { return (.finished, nil) }
            guard state.queued.count < capacity else { return (.full, nil) }
            state.queued.append(MessageBus.QueuedEvent(event: event, parent: parent))
            defer { state.drainer = nil }
            return (nil, state.drainer)
        }
        drainer?.resume()
        guard let refusal else { return true }
        dropped.increment()
        switch refusal {
        case .full: logger.warning("event not published: deferred queue full", metadata: ["type": "\(E.wireTypeName)", "capacity": "\(capacity)"])
        case .finished: logger.debug("event not published: the service is stopping", metadata: ["type": "\(E.wireTypeName)"])
        }
        return false
    }

    /// Events waiting to be published.
    public var pending: Int { state.withLock { $0.queued.count } }

    /// Publishes queued events in order, what waits at once as one batch,
    /// until the calling task is cancelled; then publishes what is still
    /// queued and returns. Run it from the service's `run()`.
    public func run() async {
        while true {
            let next: [MessageBus.QueuedEvent]? = state.withLock { state in
                guard state.queued.isEmpty else {
                    let batch = Array(state.queued.prefix(batchLimit))
                    state.queued.removeFirst(batch.count)
                    return batch
                }
                return state.finished ? [] : nil
            }
            switch next {
            case .some(let batch) where !batch.isEmpty:
                await publish(batch)
            case .some:
                return
            case .none:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let wake = state.withLock { state in
                            if !state.queued.isEmpty || state.finished { return true }
                            state.drainer = continuation
                            return false
                        }
                        if wake { continuation.resume() }
                    }
                } onCancel: {
                    finish()
                }
            }
        }
    }

    /// Stops accepting events; ``run()`` returns once the queue is empty.
    public func finish() {
        let drainer = state.withLock { state in
            state.finished = true
            defer { state.drainer = nil }
            return state.drainer
        }
        drainer?.resume()
    }

    private func publish(_ batch: [MessageBus.QueuedEvent]) async {
        for (index, refusal) in await bus.publish(queued: batch) {
            refused.increment()
            logger.warning("event not published", metadata: ["type": "\(type(of: batch[index].event).wireTypeName)", "reason": "\(refusal)"])
        }
    }
}
