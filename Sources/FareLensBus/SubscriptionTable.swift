import CoreMetrics

/// Who receives one event type, worked out once and kept until the
/// subscriptions change: publishing looks it up by the type's identity
/// instead of hashing the topic name and filtering subscribers per event.
final class EventAudience: Sendable {
    /// Subscribers of exactly this type on its topic, then the wildcard ones.
    let queues: [SubscriberQueue]
    let durable: Bool
    let metrics: TopicMetrics

    init(queues: [SubscriberQueue], durable: Bool, metrics: TopicMetrics) {
        self.queues = queues
        self.durable = durable
        self.metrics = metrics
    }
}

/// Subscribers by topic name, the wildcard subscribers, topic metrics, and
/// the audience of each event type published so far.
struct SubscriptionTable: Sendable {
    /// Typed subscribers, and wildcard subscribers watching chosen topics.
    private(set) var byTopic: [String: [SubscriberQueue]] = [:]
    /// Subscribers to every topic.
    private(set) var wildcard: [SubscriberQueue] = []
    private var metrics: [String: TopicMetrics] = [:]
    /// Emptied whenever a subscriber comes or goes.
    private var audiences: [ObjectIdentifier: EventAudience] = [:]

    /// Everyone who should receive an event of `type`, plus its topic's metrics.
    mutating func audience(for type: any BusEvent.Type, factory: any MetricsFactory) -> EventAudience {
        let key = ObjectIdentifier(type)
        if let known = audiences[key] { return known }
        let topic = type.topic
        let topicMetrics: TopicMetrics
        if let existing = metrics[topic.name] {
            topicMetrics = existing
        } else {
            topicMetrics = TopicMetrics(topic: topic, factory: factory)
            metrics[topic.name] = topicMetrics
        }
        let typed = (byTopic[topic.name] ?? []).filter { $0.takes(key) }
        let audience = EventAudience(queues: typed + wildcard, durable: topic.isDurable, metrics: topicMetrics)
        audiences[key] = audience
        return audience
    }

    mutating func add(_ queue: SubscriberQueue, topic: String) {
        byTopic[topic, default: []].append(queue)
        audiences = [:]
    }

    /// Makes `topic`'s metrics if they are not made yet, so that its
    /// published and dropped counts show from a service's subscription (at
    /// 0), not from the first event: for the topics of event types the
    /// node's own code subscribes to (not an admin watcher's topic names).
    mutating func makeMetrics(for topic: Topic, factory: any MetricsFactory) {
        if metrics[topic.name] == nil { metrics[topic.name] = TopicMetrics(topic: topic, factory: factory) }
    }

    mutating func addWildcard(_ queue: SubscriberQueue) {
        wildcard.append(queue)
        audiences = [:]
    }

    mutating func remove(_ queue: SubscriberQueue) {
        let id = ObjectIdentifier(queue)
        for (name, queues) in byTopic {
            let kept = queues.filter { ObjectIdentifier($0) != id }
            byTopic[name] = kept.isEmpty ? nil : kept
        }
        wildcard.removeAll { ObjectIdentifier($0) == id }
        audiences = [:]
    }
}
