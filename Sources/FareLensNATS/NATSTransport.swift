#if NATS
public import FareLensBus
import FareLensMessages
public import FareLensWire
public import Logging
public import Metrics
import Foundation
import NIOCore
import NIOPosix
public import ServiceLifecycle
import Synchronization

/// The bus over NATS (docs/bus.md, "Over NATS"): requests go to
/// `<ns>.req.<address>` and are shared by the nodes hosting the address
/// (a queue group), events to `<ns>.evt.<topic>`, durable events into a
/// JetStream stream that each node reads through its own durable consumer,
/// and heartbeats on `<ns>.node.<name>` tell every node who hosts what.
///
/// Created at start-up (it connects then, so a bad URL or credential stops
/// the node with a ``NATSError`` naming the key); as a `Service` it
/// subscribes, announces itself and serves until graceful shutdown.
public final class NATSTransport: BusTransport, EnvelopeRelay, Service {
    let bus: MessageBus
    let settings: NATSSettings
    let subjects: NATSSubjects
    let identity: NodeIdentity
    let logger: Logger
    let metricsFactory: any MetricsFactory
    let connection: NATSConnection
    /// A second connection, whose writes libnats gathers, for batches of
    /// durable events (``publishDurable(_:most:)``): a batch's thousand
    /// publishes go out in a few writes, not one each, and a request or a
    /// lone publish on ``connection`` never waits for that gathering.
    let batchConnection: NATSConnection
    /// A third connection, holding only the queue subscriptions of the
    /// addresses this node serves, each delivered by a thread of its own:
    /// a request's handler starts on that thread (``asked(_:)``), so one
    /// that holds it until its first suspension delays only later requests
    /// to its own address, never replies, heartbeats or events, which
    /// ``connection`` delivers on libnats' shared threads.
    let requestConnection: NATSConnection
    /// Where request deadlines are timed (one timer for all of them) and
    /// heartbeats sent.
    let timers: any EventLoop
    /// Requests from other nodes go on on this event loop once their
    /// handler first suspends (they start on their address's delivery
    /// thread, ``requestConnection``), as the socket bridge's do: a
    /// concurrency pool busy elsewhere does not delay them.
    let executor: EventLoopTaskExecutor
    let state: Mutex<State>
    /// Called once subscribed and announced.
    let onJoined: @Sendable () -> Void

    struct State {
        var registry: NodeRegistry
        /// Each known node's last heartbeat, for `farelensctl status`.
        var hellos: [String: WireHello] = [:]
        var waiting: [UInt64: Waiting] = [:]
        var deadlines = RequestDeadlines()
        var nextID: UInt64 = 0
        var subscriptions: [NATSSubscription] = []
        /// The queue subscriptions of the addresses this node serves.
        var requestSubscriptions: [NATSSubscription] = []
        /// Requests from other nodes being answered now.
        var answering = 0
        /// Waiting for `answering` to reach zero (a leaving node).
        var answeringDone: [CheckedContinuation<Void, Never>] = []
        var durable: DurableConsumer?
        var inbound: InboundEvents?
        /// Where a graceful leave is (`nil`: not leaving).
        var leaving: Leaving?
        /// Subjects a heartbeat speaking for another node came on, each warned of once.
        var impostorSubjects: Set<String> = []
        var stopping: Bool { leaving != nil }
    }

    /// The steps of a graceful leave, in order.
    enum Leaving: Equatable {
        /// Out of the queue groups; requests already sent here are handed to handlers.
        case handingOnRequests
        /// Waiting for the answers to the requests taken.
        case finishingAnswers
        /// Goodbye said; events stop; the connection closes.
        case closing
    }

    /// Where a graceful leave is, for tests (`nil`: not leaving).
    var leavingStep: Leaving? { state.withLock { $0.leaving } }

    /// Connects to NATS and makes sure the namespace's durable stream
    /// exists, on a thread of its own (``onOwnThread(_:)``): libnats'
    /// connect and a JetStream cluster's election (up to 60 s) block their
    /// thread, which must not be one of the concurrency pool's.
    ///
    /// - Throws: ``NATSError`` as ``init(bus:settings:identity:logger:metricsFactory:onJoined:)``.
    public static func connect(
        bus: MessageBus, settings: NATSSettings, identity: NodeIdentity, logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory, onJoined: @escaping @Sendable () -> Void = {}
    ) async throws(NATSError) -> NATSTransport {
        try await onOwnThread { () throws(NATSError) -> NATSTransport in
            try NATSTransport(bus: bus, settings: settings, identity: identity, logger: logger, metricsFactory: metricsFactory, onJoined: onJoined)
        }
    }

    /// Connects to NATS and makes sure the namespace's durable stream
    /// exists, blocking the calling thread meanwhile: from a task, call
    /// ``connect(bus:settings:identity:logger:metricsFactory:onJoined:)``.
    ///
    /// - Throws: ``NATSError`` when no server answers (`nats.urls`), the
    ///   credentials are refused, or JetStream is unavailable.
    public init(
        bus: MessageBus, settings: NATSSettings, identity: NodeIdentity, logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory, onJoined: @escaping @Sendable () -> Void = {}
    ) throws(NATSError) {
        self.bus = bus
        self.metricsFactory = metricsFactory
        self.onJoined = onJoined
        self.settings = settings
        self.subjects = NATSSubjects(namespace: settings.namespace)
        self.identity = identity
        self.logger = logger
        self.timers = MultiThreadedEventLoopGroup.singleton.next()
        self.executor = EventLoopTaskExecutor(eventLoop: timers)
        self.state = Mutex(State(registry: NodeRegistry(timeout: settings.heartbeat * 3)))
        let events = ConnectionEventSink()
        self.connection = try NATSConnection(settings: settings, name: "farelens-\(identity.nodeName)") { events.handle($0) }
        try Self.ensureStream(connection: connection, subjects: subjects, settings: settings, logger: logger)
        do {
            self.batchConnection = try NATSConnection(settings: settings, name: "farelens-\(identity.nodeName)-batches", writesAtOnce: false) { events.handle($0, on: .batches) }
        } catch {
            connection.close()
            throw error
        }
        do {
            self.requestConnection = try NATSConnection(settings: settings, name: "farelens-\(identity.nodeName)-requests", threadPerSubscription: true) { events.handle($0, on: .requests) }
        } catch {
            connection.close()
            batchConnection.close()
            throw error
        }
        events.transport = self
    }

    /// Makes the namespace's durable stream, waiting up to 60 s for a
    /// cluster that is still electing its JetStream leader (servers and
    /// nodes started together); then the last refusal is the error.
    private static func ensureStream(connection: NATSConnection, subjects: NATSSubjects, settings: NATSSettings, logger: Logger) throws(NATSError) {
        let giveUpAt = ContinuousClock.now + .seconds(60)
        var attempts = 0
        while true {
            do {
                let outcome = try connection.ensureStream(subjects.stream, subject: subjects.durableEvents, maxAge: settings.retention, replicas: settings.replicas)
                if case .keptAsIs(let reason) = outcome {
                    logger.warning(
                        "the durable stream's settings differ from this node's and its NATS user may not update them (only an admin user may): the stream is used as it is",
                        metadata: ["stream": "\(subjects.stream)", "keys": "nats.retentionHours, nats.replicas", "user": "\(settings.user ?? "")", "refusal": "\(reason)"])
                }
                if attempts > 0 { logger.notice("JetStream took the durable stream", metadata: ["stream": "\(subjects.stream)", "attempts": "\(attempts + 1)"]) }
                return
            } catch {
                attempts += 1
                // A server without JetStream (nothing answers its API: "no
                // responders"; or "not enabled" for the account) will not get
                // it by waiting; an election answers "timeout" or "unavailable".
                let reason = error.message.lowercased()
                guard ContinuousClock.now < giveUpAt, !reason.contains("no responders"), !reason.contains("not enabled") else { throw error }
                if attempts == 1 { logger.notice("JetStream is not ready yet; retrying for up to 60 s", metadata: ["reason": "\(error)"]) }
                Thread.sleep(forTimeInterval: 0.25)  // safe: start-up waiting for a JetStream cluster's election, bounded (60 s)
            }
        }
    }

    /// What a connection reports on its own threads (`batches`: the
    /// batch connection's, whose losses and returns the log tells apart).
    /// The transport's three connections, as logs name them.
    enum ConnectionRole: String {
        case main
        case requests = "served requests"
        case batches = "durable batches"
    }

    func connectionEvent(_ event: NATSConnection.ConnectionEvent, on role: ConnectionRole = .main) {
        let node = identity.nodeName
        let which = Logger.MetadataValue.string(role.rawValue)
        switch event {
        case .disconnected:
            // Closing the connection at the end of a graceful leave reports a disconnection too: not a loss.
            if state.withLock({ $0.leaving == .closing }) {
                logger.debug("disconnected from NATS: leaving", metadata: ["node": "\(node)", "connection": which])
            } else {
                logger.warning("lost the NATS server; reconnecting", metadata: ["node": "\(node)", "connection": which])
            }
        case .reconnected(let url): logger.notice("reconnected to NATS", metadata: ["node": "\(node)", "url": "\(url)", "connection": which])
        case .notPermitted(let subject, let publish):
            if publish, let address = subjects.address(ofRequestSubject: subject) {
                // The user this node connects as may not reach the address (an
                // admin address, for a node without admin credentials).
                logger.warning("NATS refused a request: this node's user may not publish to it", metadata: ["subject": "\(subject)", "key": "nats.user"])
                failRequests(to: ServiceAddress(address), with: .forbidden(ServiceAddress(address)))
            } else {
                logger.error(
                    "NATS permissions refuse this node's \(publish ? "publish" : "subscription") on a subject it needs",
                    metadata: ["subject": "\(subject)", "key": "nats.user"])
            }
        case .asyncError(let text): logger.warning("NATS reported an error", metadata: ["reason": "\(text)"])
        }
    }

    /// Subscribes, announces this node, and serves until graceful shutdown;
    /// then says goodbye and closes the connection.
    ///
    /// Heartbeats go out, and silent nodes are forgotten, on an event loop
    /// of NIO's, not on the concurrency pool: a pool busy with other work
    /// (a loaded 2-core machine) must not make this node look gone.
    public func run() async throws {
        try subscribeAll()
        let beating = timers.scheduleRepeatedTask(initialDelay: TimeAmount(settings.heartbeat), delay: TimeAmount(settings.heartbeat)) { [weak self] _ in
            self?.announce()
            self?.forgetSilentNodes()
        }
        try? await gracefulShutdown()  // returns on graceful shutdown, throws (ignored) on cancellation
        await leave(heartbeat: beating)
    }

    private func subscribeAll() throws(NATSError) {
        var subscriptions: [NATSSubscription] = []
        var requestSubscriptions: [NATSSubscription] = []
        subscriptions.append(try connection.subscribe(subjects.replies(to: identity.nodeName)) { [weak self] in self?.replied($0) })
        for address in bus.localAddresses {
            requestSubscriptions.append(try requestConnection.subscribe(subjects.request(address.name), queue: address.name) { [weak self] in self?.asked($0) })
        }
        for topic in bus.wantedTopics {
            subscriptions.append(try connection.subscribe(subjects.event(topic)) { [weak self] in self?.eventArrived($0) })
        }
        // A node that subscribes to nothing reads nothing back: no consumer
        // (JetStream then neither delivers to it nor waits for its acknowledgements).
        let durable = bus.wantedTopics.isEmpty ? nil : try DurableConsumer(transport: self)
        try requestConnection.flush()
        try connection.flush()
        state.withLock {
            $0.subscriptions = subscriptions
            $0.requestSubscriptions = requestSubscriptions
            $0.durable = durable
            $0.inbound = InboundEvents(bus: bus, capacity: 4096, logger: logger)
        }
        durable?.start()
        // Heard last: hearing a new node is answered with this node's heartbeat at once, and that heartbeat
        // names its addresses and topics, so it may go out only once their subscriptions exist and the
        // server has them (the flush above) and events have somewhere to go (`inbound`). Subscribed first,
        // a heartbeat heard while the JetStream consumer was being made was answered early, and the plain
        // events a node sent on that answer were lost (NATSTransportTests.announcedOnlyWhenJoined, 4 of 10).
        // Its SUB precedes this node's first heartbeat on the connection, so every answer to it is heard.
        let heartbeats = try connection.subscribe(subjects.heartbeats) { [weak self] in self?.heard($0) }
        state.withLock { $0.subscriptions.append(heartbeats) }
        announce()
        onJoined()
        logger.info("joined NATS", metadata: ["node": "\(identity.nodeName)", "nats": "\(settings)"])
    }

    /// Graceful end, in an order that loses no request: this node first
    /// leaves its addresses' queue groups (the server sends their requests
    /// to the other members, or answers "no responders"), hands on the
    /// requests already sent to it and answers them; then it says goodbye,
    /// stops hearing events and closes the connection. Goodbye first would
    /// leave a window in which callers that heard it still reach this node,
    /// whose answers would find the connection closed. Heartbeats go on
    /// until the goodbye: a node finishing long answers must not look
    /// silent and be forgotten. Each answer is bounded by its request's
    /// deadline, so a leave waits at most that long.
    private func leave(heartbeat: RepeatedTask) async {
        let requestSubscriptions = state.withLock { state in
            state.leaving = .handingOnRequests
            defer { state.requestSubscriptions = [] }
            return state.requestSubscriptions
        }
        let drained = await blocking { requestSubscriptions.allSatisfy { $0.drain(milliseconds: 5000) } }
        if !drained { logger.warning("requests not all handed on within 5 s of leaving; their callers will time out") }
        state.withLock { $0.leaving = .finishingAnswers }
        await answersInFlight()
        let (subscriptions, durable, inbound) = state.withLock { state in
            state.leaving = .closing
            defer { state.subscriptions = []; state.durable = nil; state.inbound = nil }
            return (state.subscriptions, state.durable, state.inbound)
        }
        heartbeat.cancel()
        announce(goodbye: true)
        _ = await blocking { [connection, requestConnection] in
            // The goodbye, and the answers given on the requests' connection, reach the server before both close.
            (try? connection.flush(milliseconds: 1000)) != nil && (try? requestConnection.flush(milliseconds: 1000)) != nil
        }
        subscriptions.forEach { $0.unsubscribe() }
        await durable?.stop()
        await inbound?.stop()
        connection.close()
        requestConnection.close()
        batchConnection.close()
        failAllWaiting(reason: "node \(identity.nodeName) is shutting down")
    }

    /// Runs a call that blocks its thread (libnats' waits) off the
    /// concurrency pool, to its end even when the calling task is cancelled
    /// (leaving is how a cancelled transport ends).
    func blocking(_ work: @escaping @Sendable () -> Bool) async -> Bool {
        (try? await NIOThreadPool.singleton.runIfActive(eventLoop: timers, work).get()) ?? false
    }

    // MARK: BusTransport

    public func hosts(_ address: ServiceAddress) -> Bool {
        state.withLock { !$0.stopping && $0.registry.hosts(address.name) }
    }

    public nonisolated(nonsending) func send<R: BusRequest>(_ request: R, to address: ServiceAddress, context: RequestContext) async throws(BusError) -> R.Response {
        var envelope = try WireEnvelope.request(request, context: context)
        envelope.address = address.name
        let reply = try await call(envelope, dueAt: context.dueAt)
        if let error = reply.busError { throw error }
        do {
            return try R.Response(wireEncoded: Array(reply.payload))
        } catch {
            throw .badMessage("response to \(R.wireTypeName) does not decode as \(R.Response.wireTypeName): \(error)")
        }
    }

    public func forward<E: BusEvent>(_ event: E, metadata: EventMetadata) async throws(BusError) {
        guard let durable = forwardOrPrepare(event, metadata: metadata) else { return }
        if let refusal = await publishDurable(CollectionOfOne(durable), most: 1).refusal { throw refusal }
    }

    /// Forwards a batch's non-durable events at once and publishes its
    /// durable ones into the stream together, each sent as soon as it is
    /// encoded, one wait for their acknowledgements (``publishDurable(_:most:)``).
    public func forward(batch: [ForwardedEvent]) async -> BatchOutcome {
        let durable = batch.lazy.enumerated().compactMap { index, item in self.forwardOrPrepare(item.event, metadata: item.metadata, index: index) }
        let refused = await publishDurable(durable, most: batch.count)
        return BatchOutcome(count: refused.index ?? batch.count, refusal: refused.refusal)
    }

    /// Publishes a non-durable event (if another node wants its topic) and
    /// returns nil, or encodes a durable one for the stream. An event that
    /// cannot be encoded is logged and not forwarded.
    private func forwardOrPrepare<E: BusEvent>(_ event: E, metadata: EventMetadata, index: Int = 0) -> DurablePublication? {
        // A plain event nobody else wants is not encoded or sent (as the
        // bridge's spoke does); a durable one always goes to the stream, for
        // the consumers of nodes that are away.
        guard E.topic.isDurable || state.withLock({ $0.registry.wants(E.topic.name) }) else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try WireEnvelope.event(event, metadata: metadata).serializedBytes()
        } catch {
            logger.error("event not forwarded: cannot encode", metadata: ["type": "\(E.wireTypeName)", "reason": "\(error)"])
            return nil
        }
        guard E.topic.isDurable else {
            do { try connection.publish(subjects.event(E.topic.name), headers: nodeHeaders, payload: bytes) } catch {
                logger.warning("event not forwarded to NATS", metadata: ["topic": "\(E.topic.name)", "reason": "\(error)"])
            }
            return nil
        }
        return DurablePublication(index: index, topic: E.topic.name, id: metadata.id, payload: bytes)
    }

    /// The headers of every event this node publishes.
    var nodeHeaders: [(String, String)] { [(Header.node, identity.nodeName)] }
}

/// Passes the connection's events to the transport once it exists (the
/// connection is made, and may report, before the transport's `init` ends).
/// Weak: the connection outlives nothing it reports to.
private final class ConnectionEventSink: Sendable {
    private struct Target { weak var transport: NATSTransport? }
    private let target = Mutex(Target())
    var transport: NATSTransport? {
        get { target.withLock { $0.transport } }
        set { target.withLock { $0.transport = newValue } }
    }
    func handle(_ event: NATSConnection.ConnectionEvent, on role: NATSTransport.ConnectionRole = .main) { transport?.connectionEvent(event, on: role) }
}

/// The headers FareLens sets on NATS messages.
enum Header {
    /// The publishing node (a node skips its own durable events: its local subscribers had them).
    static let node = "FareLens-Node"
    /// A request's remaining budget in microseconds when sent.
    static let deadline = "FareLens-Deadline-Us"
    /// On a heartbeat: the node is leaving.
    static let goodbye = "FareLens-Goodbye"
}
#endif
