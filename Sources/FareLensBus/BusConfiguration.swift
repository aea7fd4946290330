public import CoreMetrics

/// Limits and defaults of one bus. Every value is finite: nothing on the bus
/// is unbounded.
public struct BusConfiguration: Sendable {
    /// Deadline of a request when the caller gives none and none is inherited.
    public var defaultDeadline: Duration = .seconds(5)
    /// Requests one service may have in flight before new ones fail with
    /// ``BusError/Kind/overloaded``.
    public var maxInFlightPerService: Int = 1024
    /// Events buffered per subscriber before the topic's policy applies
    /// (durable: publisher waits; others: the event is dropped and counted).
    public var subscriberBufferSize: Int = 4096
    /// Durable event ids remembered per publisher to recognise a redelivery
    /// from another node. Must be at least the bridge's backlog cap per
    /// peer (docs/bus.md), which the node checks at start-up.
    public var redeliveryWindow: Int = 131_072
    /// Publishers whose recent ids are remembered (the one first heard
    /// longest ago is forgotten first; a restarted node is a new publisher).
    public var redeliveryPublishers: Int = 1024
    /// The name of this node (process) in logs, metrics and event ids.
    public var nodeName: String = "farelens"

    /// Where the bus creates its metrics (the global `MetricsSystem` by
    /// default; tests pass a `TestMetrics`).
    public var metricsFactory: any MetricsFactory = MetricsSystem.factory

    /// The defaults above.
    /// What gathering windows read and wait on (``BusClock``): the continuous clock, or a test's.
    public var clock: BusClock = .continuous

    public init() {}
}
