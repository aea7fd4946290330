extension MessageBus {
    /// An event published under an id its publisher keeps across restarts
    /// (``publish(batch:)``), with what to call once this node is done with it.
    public struct KeptIDEvent: Sendable {
        public let event: any BusEvent
        public let id: EventID
        public let traceID: TraceID
        /// As `onSettled` of ``publish(_:id:traceID:onSettled:)``.
        public let onSettled: @Sendable () -> Void
        public init(event: any BusEvent, id: EventID, traceID: TraceID, onSettled: @escaping @Sendable () -> Void) {
            self.event = event
            self.id = id
            self.traceID = traceID
            self.onSettled = onSettled
        }
    }

    /// An event queued for ``publish(queued:)`` (what a
    /// ``DeferredPublisher`` keeps), and the request it was published in.
    public struct QueuedEvent: Sendable {
        public let event: any BusEvent
        public let parent: RequestContext?
        public init(event: any BusEvent, parent: RequestContext?) {
            self.event = event
            self.parent = parent
        }
    }

    /// Publishes `batch` in order as ``publish(_:id:traceID:onSettled:)``
    /// would one event after another, but hands it to each transport at
    /// once: over NATS every durable event of the batch is in flight
    /// together and the batch waits once for JetStream's acknowledgements
    /// (what an event outbox's round publishes).
    ///
    /// Every local subscriber receives every event, in order, before the
    /// transports have any. A transport that refuses event `k` (an away
    /// node's backlog at its cap, JetStream not storing it within its
    /// retries) ends the batch's publication there: the outcome's `count`
    /// is `k`, and the caller publishes `k` and what follows again, under
    /// the same ids (local subscribers had them; their inboxes apply each
    /// once).
    ///
    /// - Returns: how many events, from the first, every transport has.
    public nonisolated(nonsending) func publish(batch: [KeptIDEvent]) async -> BatchOutcome {
        let settlements = batch.map { DeliverySettlement(onSettled: $0.onSettled, shutdown: shutdown) }
        defer { for settlement in settlements { settlement.release() } }
        let forwarded = await deliverLocally(batch.indices.map { index in
            let item = batch[index], type = type(of: item.event)
            return (item.event, EventMetadata(id: item.id, topic: type.topic, typeName: type.wireTypeName, traceID: item.traceID), settlements[index])
        })
        var outcome = BatchOutcome(count: batch.count, refusal: nil)
        for transport in transports.withLockedValue({ $0 }) {
            let handed = await transport.forward(batch: forwarded)
            if handed.count < outcome.count { outcome = handed }
        }
        return outcome
    }

    /// Publishes `queued` in order, as ``publish(_:parent:)`` would one
    /// event after another (each takes the bus's next id), but hands them
    /// to each transport together (over NATS: the durable ones all in
    /// flight, one wait for their acknowledgements). An event a transport
    /// refuses does not hold back the ones after it: the transport is
    /// handed the rest.
    ///
    /// - Returns: the events a transport refused, by their index in
    ///   `queued`, and why (empty when every transport has every event).
    ///   Local subscribers received every event, once.
    public nonisolated(nonsending) func publish(queued: [QueuedEvent]) async -> [(index: Int, refusal: BusError)] {
        let forwarded = await deliverLocally(queued.map { item in
            let type = type(of: item.event)
            let sequence = eventSequence.add(1, ordering: .relaxed).newValue
            let metadata = EventMetadata(
                id: EventID(publisher: publisherName, sequence: sequence), topic: type.topic, typeName: type.wireTypeName,
                traceID: item.parent?.traceID ?? nextTraceID())
            return (item.event, metadata, nil)
        })
        var refusals: [(index: Int, refusal: BusError)] = []
        for transport in transports.withLockedValue({ $0 }) {
            var start = 0
            while start < forwarded.count {
                let handed = await transport.forward(batch: Array(forwarded[start...]))
                guard let refusal = handed.refusal else { break }
                refusals.append((start + handed.count, refusal))
                start += handed.count + 1
            }
        }
        return refusals.sorted { $0.index < $1.index }
    }

    /// Hands each event to its local audience, in order; returns them as
    /// the transports are handed them.
    private nonisolated(nonsending) func deliverLocally(_ items: [(any BusEvent, EventMetadata, DeliverySettlement?)]) async -> [ForwardedEvent] {
        var forwarded: [ForwardedEvent] = []
        forwarded.reserveCapacity(items.count)
        for (event, metadata, settlement) in items {
            try? await deliver(event, metadata: metadata, settlement: settlement, forwardToTransports: false)  // safe: throws only when forwarding
            forwarded.append(ForwardedEvent(event: event, metadata: metadata))
        }
        return forwarded
    }
}
