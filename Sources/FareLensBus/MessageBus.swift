import CoreMetrics
public import Logging
import NIOConcurrencyHelpers
import Synchronization

/// The typed in-process message bus: request/reply to service addresses and
/// publish/subscribe on topics. In process a message travels as a value;
/// requests for addresses hosted elsewhere go through an attached
/// ``BusTransport``. The guarantees are written in `docs/bus.md`.
public final class MessageBus: Sendable {
    /// Limits and defaults.
    public let configuration: BusConfiguration
    /// Whether the bus's clock is the continuous one (``BusClock/continuous``):
    /// the request path then reads it without touching the configuration.
    @usableFromInline let onContinuousClock: Bool
    /// This bus instance's publisher id in event ids (node name + random epoch).
    public var publisherID: String { publisherName.text }
    /// The publisher id, interned once for the ids of this bus's events.
    let publisherName: PublisherName
    let logger: Logger
    // The route table and the transports are read by every request, from
    // every calling thread at once: pthread mutexes (decision 0015).
    let routes = NIOLockedValueBox(RouteTable())
    let subscriptions = Mutex(SubscriptionTable())
    let transports = NIOLockedValueBox<[any BusTransport]>([])
    let eventTypes = Mutex<[String: any BusEvent.Type]>([:])
    let eventSequence = Atomic<UInt64>(0)
    let traceSequence = Atomic<UInt64>(0)
    let tracePrefix: UInt64
    let watchdog: DeadlineWatchdog
    let redeliveries: Mutex<RedeliveryWindow>
    let redeliveriesDropped: Counter
    let shutdown = ShutdownFlag()

    /// Creates a bus with the given limits.
    public init(configuration: BusConfiguration = BusConfiguration(), logger: Logger = Logger(label: "farelens.bus")) {
        self.configuration = configuration
        self.watchdog = DeadlineWatchdog(clock: configuration.clock)
        self.onContinuousClock = configuration.clock.isContinuous
        self.logger = logger
        var generator = SystemRandomNumberGenerator()
        let epoch = generator.next() as UInt64
        self.tracePrefix = generator.next()
        self.publisherName = PublisherName("\(configuration.nodeName)#\(String(epoch, radix: 36))")
        self.redeliveries = Mutex(RedeliveryWindow(perPublisher: configuration.redeliveryWindow, publishers: configuration.redeliveryPublishers))
        self.redeliveriesDropped = Counter(label: "farelens_bus_redeliveries_dropped_total", factory: configuration.metricsFactory)
    }

    /// Marks the start of this node's shutdown; call it before services stop
    /// (the runtime's `Node` does). From then on a durable event from another
    /// node is acknowledged only if every subscriber that took it asked for
    /// the next one: events still buffered or in a consumer's hands when its
    /// subscription goes away, and events that arrive from now on, stay
    /// unacknowledged, so the sender redelivers them when this node returns
    /// (docs/bus.md, "Durable events from other nodes").
    public func beginShutdown() {
        shutdown.raise()
    }

    /// Whether ``beginShutdown()`` was called.
    public var isShuttingDown: Bool { shutdown.isRaised }

    /// Attaches a transport to other nodes (the socket bridge).
    public func attach(_ transport: any BusTransport) {
        transports.withLockedValue { $0.append(transport) }
    }

    /// Addresses with a handler in this process.
    public var localAddresses: Set<ServiceAddress> {
        routes.withLockedValue { Set($0.slots.keys) }
    }

    /// Requests in flight at a local address (0 if it has no handler).
    public func inFlight(at address: ServiceAddress) -> Int {
        routes.withLockedValue { $0.slots[address] }?.inFlight ?? 0
    }

    /// Whether a local address admits new requests (false while draining
    /// and when it has no handler).
    public func isAccepting(at address: ServiceAddress) -> Bool {
        routes.withLockedValue { $0.slots[address] }?.isAccepting ?? false
    }

    /// A cheap, process-unique trace id: random high half, counter low half.
    func nextTraceID() -> TraceID {
        TraceID(high: tracePrefix, low: traceSequence.add(1, ordering: .relaxed).newValue)
    }
}
