import NIOConcurrencyHelpers

extension MessageBus {
    /// Registers event types the bus can decode when a transport delivers
    /// them encoded, even with no typed subscriber here (a wildcard
    /// subscriber wants every type). Subscribing registers its type too.
    public func registerEventTypes(_ types: [any BusEvent.Type]) {
        eventTypes.withLock { table in
            for type in types { table[type.wireTypeName] = type }
        }
    }

    /// Decodes an event that arrived from a transport and delivers it to the
    /// local subscribers like ``deliverFromTransport(_:metadata:onSettled:)``
    /// (redeliveries of durable events are recognised by id and not
    /// delivered again). It is not forwarded to transports again.
    ///
    /// Waits, like ``publish(_:parent:)``, while a durable subscriber's
    /// buffer is full: when this returns, the event is in every local
    /// subscriber's queue (or was a redelivery, or dropped for a full
    /// non-durable buffer). `onSettled` runs later, once every local
    /// subscriber is done with a durable event (see ``Delivery``).
    ///
    /// - Throws: ``BusError`` `badMessage` for an unknown type name or bytes
    ///   that do not decode as that type.
    public func deliverEncodedEvent(
        typeName: String, payload: [UInt8], id: EventID, traceID: TraceID, onSettled: (@Sendable () -> Void)? = nil
    ) async throws(BusError) {
        guard let type = eventTypes.withLock({ $0[typeName] }) else {
            throw .badMessage("no event type named '\(typeName)' is known on node \(configuration.nodeName)")
        }
        let event: any BusEvent
        do {
            event = try type.init(wireEncoded: payload)
        } catch {
            throw .badMessage("payload does not decode as \(typeName): \(error)")
        }
        await deliverDecoded(event, id: id, traceID: traceID, onSettled: onSettled)
    }

    private func deliverDecoded<E: BusEvent>(_ event: E, id: EventID, traceID: TraceID, onSettled: (@Sendable () -> Void)?) async {
        let metadata = EventMetadata(id: id, topic: E.topic, typeName: E.wireTypeName, traceID: traceID)
        await deliverFromTransport(event, metadata: metadata, onSettled: onSettled)
    }

    /// Topics this process wants from other nodes: every topic with a local
    /// subscriber, plus `*` when a wildcard subscriber exists.
    public var wantedTopics: Set<String> {
        subscriptions.withLock { table in
            var topics = Set(table.byTopic.keys)
            if !table.wildcard.isEmpty { topics.insert("*") }
            return topics
        }
    }
}

extension MessageBus {
    /// Whether a handler is registered here for `address` (draining or not).
    public func hasHandler(at address: ServiceAddress) -> Bool {
        routes.withLockedValue { $0.slots[address] != nil }
    }
}

extension MessageBus {
    /// Whether any local subscriber (typed or wildcard) hears `topic`.
    public func hasSubscribers(topic: String) -> Bool {
        subscriptions.withLock { !$0.wildcard.isEmpty || $0.byTopic[topic] != nil }
    }
}
