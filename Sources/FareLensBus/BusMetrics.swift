import Metrics

/// The swift-metrics handles of one request type, created once at
/// registration so the request path does no label look-ups.
@usableFromInline
struct RequestMetrics: Sendable {
    let handled: Counter
    /// Counts one failed request of this kind.
    @usableFromInline let failed: @Sendable (BusError.Kind) -> Void
    let latency: Metrics.Timer

    /// Every kind a request can fail with: each route's error counters are
    /// made for these at registration, so `farelens_bus_request_errors_total`
    /// shows each at 0 from the start (a rate over it sees the first error).
    static let failureKinds: [BusError.Kind] = [.timeout, .serviceUnavailable, .overloaded, .cancelled, .remote, .badMessage, .forbidden]

    init(typeName: String, address: ServiceAddress, factory: any MetricsFactory) {
        let dimensions = [("type", typeName), ("address", address.name)]
        handled = Counter(label: "farelens_bus_requests_total", dimensions: dimensions, factory: factory)
        latency = Metrics.Timer(label: "farelens_bus_request_duration_seconds", dimensions: dimensions, factory: factory)
        let errors = Dictionary(uniqueKeysWithValues: Self.failureKinds.map { kind in
            (kind, Counter(label: "farelens_bus_request_errors_total", dimensions: dimensions + [("kind", kind.name)], factory: factory))
        })
        failed = { kind in
            (errors[kind] ?? Counter(label: "farelens_bus_request_errors_total", dimensions: dimensions + [("kind", kind.name)], factory: factory)).increment()
        }
    }

    /// Counts one answered request and records how long it took, in
    /// nanoseconds (two ``BusInstant`` readings subtracted: no `Duration`,
    /// whose conversion through swift-metrics' `Timer.record(duration:)`
    /// was a 128-bit division, docs/performance.md "sixth pass").
    @usableFromInline
    func succeeded(afterNanoseconds latency: Int64) {
        handled.increment()
        self.latency.recordNanoseconds(latency)
    }
}

/// The swift-metrics handles of one topic.
struct TopicMetrics: Sendable {
    let published: Counter
    let dropped: Counter

    init(topic: Topic, factory: any MetricsFactory) {
        let dimensions = [("topic", topic.name)]
        published = Counter(label: "farelens_bus_events_published_total", dimensions: dimensions, factory: factory)
        dropped = Counter(label: "farelens_bus_events_dropped_total", dimensions: dimensions, factory: factory)
    }
}
