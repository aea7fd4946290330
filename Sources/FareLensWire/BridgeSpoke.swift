public import FareLensBus
import FareLensMessages
public import Logging
import NIOConcurrencyHelpers
import NIOCore
public import NIOPosix
public import ServiceLifecycle

/// The connecting end of the bridge: joins a hub's socket, announces the
/// local services and wanted topics, and carries requests and events for
/// addresses and topics elsewhere in the mesh.
///
/// As a `Service` it reconnects with doubling backoff until graceful
/// shutdown; ``session(onJoined:)`` makes a single attempt (the admin CLI).
public final class BridgeSpoke: Service, BusTransport {
    let bus: MessageBus
    let configuration: BridgeConfiguration
    let identity: NodeIdentity
    let logger: Logger
    /// Durable events for the hub not yet acknowledged; kept across reconnects.
    let outbox: DurableOutbox
    let state = NIOLockedValueBox(State())

    struct State {
        var connection: PeerConnection?
        /// Addresses hosted by other nodes, from the last WELCOME/ROUTES.
        var remoteServices: Set<String> = []
        /// Topics other nodes want; kept while disconnected so durable
        /// events keep queueing for redelivery.
        var remoteTopics: Set<String> = []
        var stopping = false
    }

    /// Creates a spoke for `bus`, whose connections run on one loop of
    /// `eventLoopGroup` (``executor``).
    public init(bus: MessageBus, configuration: BridgeConfiguration, identity: NodeIdentity, logger: Logger, eventLoopGroup: MultiThreadedEventLoopGroup = .singleton) {
        self.bus = bus
        self.configuration = configuration
        self.identity = identity
        self.logger = logger
        self.executor = EventLoopTaskExecutor(eventLoop: eventLoopGroup.next())
        self.outbox = DurableOutbox(capacity: configuration.durableBacklog, peer: "hub", journal: configuration.outboxJournal, metricsFactory: configuration.metricsFactory)
        ConnectionMetrics.makeAll(peers: [ConnectionMetrics.hubPeer], factory: configuration.metricsFactory)
    }

    /// A task executor on the event loop this spoke's connection runs on:
    /// one loop of the group, chosen once, on which every connection the
    /// spoke makes runs, so it stays the connection's across reconnects.
    ///
    /// A task that prefers it — `withTaskExecutorPreference(spoke.executor)`
    /// or `Task(executorPreference: spoke.executor)` — writes its requests and
    /// is resumed by their responses on the connection's own thread. A caller
    /// on the concurrency pool instead wakes the loop to write and is woken
    /// back on the pool: two thread wake-ups per request. With 64 requests
    /// in flight this made the bridge 45–55% faster on the 2-core VM; a lone
    /// request is faster only where waking an idle vCPU is cheap
    /// (docs/decisions/0019-callers-on-the-spokes-event-loop.md).
    ///
    /// Whatever such a task does between requests holds the connection's
    /// loop, so its reading and writing wait meanwhile: prefer it for callers
    /// that mostly wait on the mesh (many requests in flight), not for long
    /// computation. It must never block waiting for the loop
    /// (`EventLoopFuture.wait()`).
    public let executor: EventLoopTaskExecutor

    /// Topics other nodes want, as last announced (tests).
    var remoteTopicsForTesting: Set<String> { state.withLockedValue { $0.remoteTopics } }

    /// Whether the spoke is connected to the hub now.
    public var isConnected: Bool { state.withLockedValue { $0.connection != nil } }

    /// Durable events sent (or waiting to be sent) to the hub and not yet
    /// acknowledged by it: this node's backlog, capped by `durableBacklog`.
    public var pendingDurableEvents: Int { outbox.count }

    /// Stays joined to the hub until graceful shutdown, reconnecting with
    /// backoff after every loss.
    public func run() async throws {
        var backoff = configuration.reconnectBackoff.first
        var failures = 0
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                while !state.withLockedValue({ $0.stopping }) {
                    do {
                        try await session()
                        // Joined, then lost the hub: start over quickly.
                        backoff = configuration.reconnectBackoff.first
                        failures = 0
                    } catch {
                        failures += 1
                        if failures == 1 || failures.isMultiple(of: 50) {
                            logger.warning("cannot join the hub; retrying with backoff", metadata: ["socket": "\(configuration.socketPath)", "reason": "\(error)", "attempts": "\(failures)"])
                        }
                    }
                    guard !state.withLockedValue({ $0.stopping }) else { break }
                    try? await configuration.waitBeforeReconnecting(backoff)  // ends early on cancellation; the loop then sees `stopping`
                    backoff = min(backoff * 2, configuration.reconnectBackoff.longest)
                }
            } onGracefulShutdown: {
                self.stop()
            }
        } onCancel: {
            self.stop()
        }
    }

    private func stop() {
        let connection = state.withLockedValue { state in
            state.stopping = true
            return state.connection
        }
        connection?.close(reason: "node \(identity.nodeName) is shutting down")
    }

    // MARK: BusTransport

    public func hosts(_ address: ServiceAddress) -> Bool {
        state.withLockedValue { $0.connection != nil && $0.remoteServices.contains(address.name) }
    }

    public nonisolated(nonsending) func send<R: BusRequest>(_ request: R, to address: ServiceAddress, context: RequestContext) async throws(BusError) -> R.Response {
        guard let connection = state.withLockedValue({ $0.connection }) else {
            throw .serviceUnavailable(address, reason: "not connected to the hub")
        }
        return try await connection.request(request, to: address, context: context)
    }

    public func forward<E: BusEvent>(_ event: E, metadata: EventMetadata) async throws(BusError) {
        let (wanted, connection) = state.withLockedValue { state in
            (state.remoteTopics.contains(E.topic.name) || state.remoteTopics.contains("*"), state.connection)
        }
        guard wanted else { return }
        let envelope: WireEnvelope
        do {
            envelope = try .event(event, metadata: metadata)
        } catch {
            logger.error("event not forwarded: cannot encode", metadata: ["type": "\(E.wireTypeName)", "reason": "\(error)"])
            return
        }
        guard E.topic.isDurable else {
            connection?.send(envelope)
            return
        }
        // At the cap this throws `overloaded`: the local subscribers have the
        // event, the rest of the mesh does not.
        let tagged = try outbox.append(envelope)
        // Sent under the lock, so it cannot overtake a redelivery in progress.
        state.withLockedValue { $0.connection?.send(tagged) }
    }
}
