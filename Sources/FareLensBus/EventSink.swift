import CoreMetrics

/// A subscriber as the publisher sees it, whatever event type it takes.
protocol EventSink: AnyObject, Sendable {
    func offer<E: BusEvent>(_ delivery: Delivery<E>) -> OfferOutcome
    func offerWaiting<E: BusEvent>(_ delivery: Delivery<E>) async -> OfferOutcome
    func close()
    /// Events buffered, not yet taken by the consumer.
    var depth: Int { get }
}

/// A subscriber to one event type.
final class TypedSink<Event: BusEvent>: EventSink {
    let queue: SubscriberQueue<Event>
    init(capacity: Int) { queue = SubscriberQueue(capacity: capacity) }
    var depth: Int { queue.count }

    func offer<E: BusEvent>(_ delivery: Delivery<E>) -> OfferOutcome {
        guard let typed = delivery.event as? Event else { return .closed }
        return queue.offer(Delivery(event: typed, metadata: delivery.metadata, settlement: delivery.settlement))
    }
    func offerWaiting<E: BusEvent>(_ delivery: Delivery<E>) async -> OfferOutcome {
        guard let typed = delivery.event as? Event else { return .closed }
        return await queue.offerWaiting(Delivery(event: typed, metadata: delivery.metadata, settlement: delivery.settlement))
    }
    func close() { queue.close() }
}

/// A subscriber to every topic (analytics).
final class WildcardSink: EventSink {
    let queue: SubscriberQueue<any BusEvent>
    init(capacity: Int) { queue = SubscriberQueue(capacity: capacity) }
    var depth: Int { queue.count }

    func offer<E: BusEvent>(_ delivery: Delivery<E>) -> OfferOutcome {
        queue.offer(Delivery(event: delivery.event, metadata: delivery.metadata, settlement: delivery.settlement))
    }
    func offerWaiting<E: BusEvent>(_ delivery: Delivery<E>) async -> OfferOutcome {
        await queue.offerWaiting(Delivery(event: delivery.event, metadata: delivery.metadata, settlement: delivery.settlement))
    }
    func close() { queue.close() }
}

/// Subscribers by topic name, the wildcard subscribers, and topic metrics.
struct SubscriptionTable: Sendable {
    var byTopic: [String: [any EventSink]] = [:]
    var wildcard: [any EventSink] = []
    var metrics: [String: TopicMetrics] = [:]

    /// Everyone who should receive an event on `topic`, plus its metrics.
    mutating func audience(for topic: Topic, factory: any MetricsFactory) -> ([any EventSink], [any EventSink], TopicMetrics) {
        let topicMetrics: TopicMetrics
        if let existing = metrics[topic.name] {
            topicMetrics = existing
        } else {
            topicMetrics = TopicMetrics(topic: topic, factory: factory)
            metrics[topic.name] = topicMetrics
        }
        return (byTopic[topic.name] ?? [], wildcard, topicMetrics)
    }

    mutating func remove(_ sink: any EventSink) {
        let id = ObjectIdentifier(sink)
        for (name, sinks) in byTopic {
            let kept = sinks.filter { ObjectIdentifier($0) != id }
            byTopic[name] = kept.isEmpty ? nil : kept
        }
        wildcard.removeAll { ObjectIdentifier($0) == id }
    }
}
