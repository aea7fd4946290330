import Metrics

/// The swift-metrics handles of one request type, created once at
/// registration so the request path does no label look-ups.
@usableFromInline
struct RequestMetrics: Sendable {
    let handled: Counter
    /// Counts one failed request of this kind.
    @usableFromInline let failed: @Sendable (BusError.Kind) -> Void
    let latency: Metrics.Timer

    init(typeName: String, address: ServiceAddress, factory: any MetricsFactory) {
        let dimensions = [("type", typeName), ("address", address.name)]
        handled = Counter(label: "farelens_bus_requests_total", dimensions: dimensions, factory: factory)
        latency = Metrics.Timer(label: "farelens_bus_request_duration_seconds", dimensions: dimensions, factory: factory)
        failed = { kind in
            Counter(label: "farelens_bus_request_errors_total", dimensions: dimensions + [("kind", kind.name)], factory: factory).increment()
        }
    }

    /// Counts one answered request and records how long it took.
    @usableFromInline
    func succeeded(after latency: Duration) {
        handled.increment()
        self.latency.recordNanoseconds(Self.nanoseconds(latency))
    }

    /// Whole nanoseconds of `duration`, saturating at `Int64`'s bounds.
    ///
    /// `Timer.record(duration:)` goes through `Duration.components`, a
    /// 128-bit division and overflow-checked multiplications: 4.7% of the
    /// in-process request's profile, about 25 ns (docs/performance.md,
    /// "Speed, sixth pass"). Any latency under 9.2 s fits its
    /// attoseconds in 64 bits, where dividing by a constant is a multiply.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let attoseconds = duration.attoseconds
        if let small = Int64(exactly: attoseconds) { return small / 1_000_000_000 }
        return Int64(clamping: attoseconds / 1_000_000_000)
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
