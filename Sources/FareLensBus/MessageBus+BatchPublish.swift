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
        var forwarded: [ForwardedEvent] = []
        forwarded.reserveCapacity(batch.count)
        var settlements: [DeliverySettlement] = []
        settlements.reserveCapacity(batch.count)
        defer { for settlement in settlements { settlement.release() } }
        for item in batch {
            let type = type(of: item.event)
            let metadata = EventMetadata(id: item.id, topic: type.topic, typeName: type.wireTypeName, traceID: item.traceID)
            let settlement = DeliverySettlement(onSettled: item.onSettled, shutdown: shutdown)
            settlements.append(settlement)
            try? await deliver(item.event, metadata: metadata, settlement: settlement, forwardToTransports: false)  // safe: throws only when forwarding
            forwarded.append(ForwardedEvent(event: item.event, metadata: metadata))
        }
        var outcome = BatchOutcome(count: batch.count, refusal: nil)
        for transport in transports.withLockedValue({ $0 }) {
            let handed = await transport.forward(batch: forwarded)
            if handed.count < outcome.count { outcome = handed }
        }
        return outcome
    }
}
