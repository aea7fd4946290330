import NIOConcurrencyHelpers

extension MessageBus {
    /// Publishes an event to every subscriber of its topic, every wildcard
    /// subscriber and every transport.
    ///
    /// Durable topics: waits while a subscriber's buffer is full (never
    /// drops). Other topics: an event that finds a full buffer is dropped for
    /// that subscriber and counted in `farelens_bus_events_dropped_total`.
    ///
    /// - Parameter parent: the context of the request being handled, if any,
    ///   so the event carries its trace id.
    /// - Throws: ``BusError`` `overloaded` when a durable event finds an
    ///   away or slow node's backlog at its cap (the local subscribers have
    ///   it; that node does not). Never for a non-durable topic. A handler
    ///   answering a user must not wait here: use ``DeferredPublisher``.
    public nonisolated(nonsending) func publish<E: BusEvent>(_ event: E, parent: RequestContext? = nil) async throws(BusError) {
        let sequence = eventSequence.add(1, ordering: .relaxed).newValue
        let metadata = EventMetadata(
            id: EventID(publisher: publisherName, sequence: sequence),
            topic: E.topic,
            typeName: E.wireTypeName,
            traceID: parent?.traceID ?? nextTraceID()
        )
        try await deliver(event, metadata: metadata, settlement: nil, forwardToTransports: true)
    }

    /// Publishes an event under an id its publisher keeps across restarts,
    /// as a service's event outbox does, and reports when this node is done
    /// with it: every copy published again (after a crash before the outbox
    /// recorded the first as done) carries the same id, so other nodes'
    /// redelivery windows and consumers' inboxes recognise it. Otherwise as
    /// ``publish(_:parent:)``.
    ///
    /// The caller must never give two different events one id: a publisher
    /// name of its own, and sequences that are never reused.
    ///
    /// - Parameter onSettled: called once every local subscriber that
    ///   received the event is done with it (asked for the next event or
    ///   settled its batch, or gave it up while the bus runs), at once when
    ///   none received it; never for an event given up unhandled during
    ///   shutdown. Transports have it once this call returns (the bridge
    ///   journals a durable event before it returns).
    public nonisolated(nonsending) func publish(
        _ event: any BusEvent, id: EventID, traceID: TraceID, onSettled: @escaping @Sendable () -> Void
    ) async throws(BusError) {
        let type = type(of: event)
        let metadata = EventMetadata(id: id, topic: type.topic, typeName: type.wireTypeName, traceID: traceID)
        let settlement = DeliverySettlement(onSettled: onSettled, shutdown: shutdown)
        defer { settlement.release() }
        try await deliver(event, metadata: metadata, settlement: settlement, forwardToTransports: true)
    }

    /// Delivers an event that a transport received, keeping its original id.
    /// Not forwarded again.
    ///
    /// A durable event seen before (a redelivery: same id, within the
    /// ``BusConfiguration/redeliveryWindow``) is not delivered again.
    ///
    /// - Parameter onSettled: for a durable event, called once every local
    ///   subscriber that received it is done with it (at once when none
    ///   received it); for a redelivery, once the original is settled. The
    ///   bridge acknowledges the event to its sender here.
    public nonisolated(nonsending) func deliverFromTransport<E: BusEvent>(_ event: E, metadata: EventMetadata, onSettled: (@Sendable () -> Void)? = nil) async {
        guard E.topic.isDurable else {
            try? await deliver(event, metadata: metadata, settlement: nil, forwardToTransports: false)  // safe: throws only when forwarding
            onSettled?()
            return
        }
        // A node shutting down takes no new durable work: left unacknowledged,
        // the event is redelivered to the node's next life.
        guard !shutdown.isRaised else { return }
        switch redeliveries.withLock({ $0.admit(metadata.id, onSettled: onSettled, shutdown: shutdown) }) {
        case .redelivery(let original):
            redeliveriesDropped.increment()
            if let onSettled { original.whenSettled(onSettled) }
        case .deliver(let settlement):
            try? await deliver(event, metadata: metadata, settlement: settlement, forwardToTransports: false)  // safe: throws only when forwarding
            // Cancelled part-way (its link closed while a subscriber was
            // full): some subscribers may lack it, so a redelivery must be
            // delivered again, not dropped (at least once, never lost).
            if Task.isCancelled { redeliveries.withLock { $0.forget(metadata.id) } }
            settlement.release()
        }
    }

    /// Hands an event to its audience (and to every transport when
    /// `forwardToTransports`). Not generic: the event is erased once here,
    /// so the per-subscriber work runs no generic code.
    nonisolated(nonsending) func deliver(_ event: any BusEvent, metadata: EventMetadata, settlement: DeliverySettlement? = nil, forwardToTransports: Bool) async throws(BusError) {
        let audience = subscriptions.withLock { [factory = configuration.metricsFactory] in $0.audience(for: type(of: event), factory: factory) }
        audience.metrics.published.increment()
        let delivery = ErasedDelivery(event: event, metadata: metadata, settlement: settlement)
        for queue in audience.queues {
            switch queue.offer(delivery, durable: audience.durable) {
            case .mustWait: _ = await queue.offerWaiting(delivery)
            case .dropped: audience.metrics.dropped.increment()
            case .enqueued, .closed: break
            }
        }
        guard forwardToTransports else { return }
        var refused: BusError?
        for transport in transports.withLockedValue({ $0 }) {
            do throws(BusError) { try await transport.forward(event, metadata: metadata) } catch { refused = error }
        }
        if let refused { throw refused }
    }

    /// Subscribes to event type `E` on its topic.
    ///
    /// - Parameter bufferSize: events buffered for this subscriber; defaults
    ///   to the configuration's.
    public func subscribe<E: BusEvent>(_ type: E.Type, bufferSize: Int? = nil) -> EventSubscription<E> {
        let queue = SubscriberQueue(capacity: bufferSize ?? configuration.subscriberBufferSize, eventType: ObjectIdentifier(E.self), clock: configuration.clock)
        eventTypes.withLock { $0[E.wireTypeName] = E.self }
        subscriptions.withLock { [factory = configuration.metricsFactory] table in
            table.add(queue, topic: E.topic.name)
            table.makeMetrics(for: E.topic, factory: factory)
        }
        return subscription(on: queue)
    }

    /// Subscribes to several event types, each on its topic, in one queue:
    /// the consumer sees their events in the order they arrived, whatever
    /// their topic (a consumer whose inputs compete with each other, such
    /// as alerts under a daily cap). The types are registered for decoding
    /// (``registerEventTypes(_:)``), so events from other nodes arrive too.
    ///
    /// - Parameter bufferSize: events buffered for this subscriber, all
    ///   types together; defaults to the configuration's.
    public func subscribe(_ types: [any BusEvent.Type], bufferSize: Int? = nil) -> EventSubscription<any BusEvent> {
        registerEventTypes(types)
        let queue = SubscriberQueue(capacity: bufferSize ?? configuration.subscriberBufferSize, eventType: nil, clock: configuration.clock)
        // A closure, not a key path: `\.topic.name` on an existential metatype crashes Swift 6.3.1's SIL generation.
        let topics = Set(types.map { type in type.topic })
        subscriptions.withLock { [factory = configuration.metricsFactory] table in
            for topic in topics {
                table.add(queue, topic: topic.name)
                table.makeMetrics(for: topic, factory: factory)
            }
        }
        return subscription(on: queue)
    }

    /// Subscribes to every topic (what analytics does).
    public func subscribeAll(bufferSize: Int? = nil) -> EventSubscription<any BusEvent> {
        let queue = SubscriberQueue(capacity: bufferSize ?? configuration.subscriberBufferSize, eventType: nil, clock: configuration.clock)
        subscriptions.withLock { $0.addWildcard(queue) }
        return subscription(on: queue)
    }

    /// Subscribes to events of any type on `topics` (every topic when nil):
    /// what an operator tool watching the mesh uses. Over the bridge these
    /// topics are what an admin client asks the hub to send it.
    public func subscribeAll(watching topics: Set<String>?, bufferSize: Int? = nil) -> EventSubscription<any BusEvent> {
        guard let topics else { return subscribeAll(bufferSize: bufferSize) }
        let queue = SubscriberQueue(capacity: bufferSize ?? configuration.subscriberBufferSize, eventType: nil, clock: configuration.clock)
        subscriptions.withLock { table in
            for topic in topics { table.add(queue, topic: topic) }
        }
        return subscription(on: queue)
    }

    private func subscription<Event>(on queue: SubscriberQueue) -> EventSubscription<Event> {
        // The queue is handed to the closure, not captured weakly: a weak
        // reference would move its reference count to a side table, slower
        // for the publisher and the consumer that both retain it per event.
        EventSubscription(queue: queue) { [weak self] queue in
            self?.subscriptions.withLock { $0.remove(queue) }
        }
    }

    /// Topic names with at least one in-process subscriber (a transport's
    /// "topics wanted" in its hello).
    public var subscribedTopics: Set<String> {
        subscriptions.withLock { Set($0.byTopic.keys) }
    }
}
