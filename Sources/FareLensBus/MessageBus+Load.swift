import NIOConcurrencyHelpers

/// What a bus is doing at one instant, for operators (`farelensctl status`).
public struct BusLoad: Sendable, Equatable {
    /// Service address → requests being handled now (admitted, not yet answered).
    public var inFlight: [ServiceAddress: Int] = [:]
    /// Topic name ("*" for every-topic subscribers) → events buffered in
    /// subscriber queues, not yet taken by their consumers.
    public var queuedEvents: [String: Int] = [:]
    /// Events published on this bus since it was made (every topic).
    public var eventsPublished: UInt64 = 0

    /// Creates an empty load.
    public init() {}
}

extension MessageBus {
    /// A snapshot of the requests in flight per address and the events
    /// waiting in subscriber queues per topic. Each figure is read under its
    /// own lock: the snapshot is consistent per address and per topic, not
    /// across them.
    public func load() -> BusLoad {
        var load = BusLoad()
        let slots = routes.withLockedValue { Array($0.slots.values) }
        for slot in slots { load.inFlight[slot.address] = slot.inFlight }
        let (byTopic, wildcard) = subscriptions.withLock { ($0.byTopic, $0.wildcard) }
        for (topic, queues) in byTopic { load.queuedEvents[topic] = queues.reduce(0) { $0 + $1.count } }
        if !wildcard.isEmpty { load.queuedEvents["*"] = wildcard.reduce(0) { $0 + $1.count } }
        load.eventsPublished = eventSequence.load(ordering: .relaxed)
        return load
    }
}
